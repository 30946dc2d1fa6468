//! The command line, as clap derive structs; their doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use skillpath_core::Mode;
use skillpath_core::golden_path::render::RenderLimits;
use skillpath_server::HttpLimits;

mod people;
mod releases;

pub(crate) use people::{
    HandleArgs, LogArgs, LogCommand, LogFormat, MemberArgs, MemberRoleArgs, MembersArgs,
    MembersCommand, NamespaceArgs, NamespaceReview, NamespacesArgs, NamespacesCommand,
    PlacementArgs, StarArgs, UpgradeArgs, UsersArgs, UsersCommand, VisibilityArgs, namespace,
};
pub(crate) use releases::{ReleaseArgs, ReleasesArgs, TagArgs, YankArgs, channel};

/// Parse, validate and describe agent skills (`SKILL.md` folders).
#[derive(Debug, Parser)]
#[command(name = "skillpath", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// How much skillpath says on stderr about its own work: `info` (the default) says what
    /// a server synced, skipped and reloaded; `debug` and `trace` add detail, and the warnings
    /// of the libraries skillpath runs on. `RUST_LOG` (e.g. `RUST_LOG=rmcp=debug`), when
    /// set, takes precedence.
    #[arg(long, global = true, value_enum, default_value = "info")]
    pub(crate) log_level: LogLevel,
}

/// What `--log-level` allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check skills against the format and report problems with their positions.
    ///
    /// Exit status: 0 when every skill is valid, 1 when any is invalid, 2 on usage errors.
    Validate(ValidateArgs),
    /// Print a skill's frontmatter properties as JSON.
    ReadProperties(ReadPropertiesArgs),
    /// Print the `<available_skills>` block that the reference validator generates.
    ToPrompt(ToPromptArgs),
    /// Print the catalog an agent puts in its prompt: name, description and location of each skill.
    Catalog(CatalogArgs),
    /// Print the JSON Schema (2020-12) of a skill's arguments: its MCP tool's input schema.
    Schema(SchemaArgs),
    /// Render a skill with arguments: the markdown an agent gets when it calls the skill.
    ///
    /// Exit status: 0 rendered, 1 the arguments or the skill have problems (all are listed;
    /// nothing is rendered), 2 usage errors.
    Render(RenderArgs),
    /// Create a new skill folder that validates.
    New(NewArgs),
    /// Import skill folders (or trees of them) into the store, in one transaction.
    ///
    /// Unchanged skills get no revision; changed ones exactly one. Of two skills with one name,
    /// the first (in path order) is imported and the other reported. A folder that cannot be
    /// loaded (no frontmatter, unparseable YAML, no name or description, unreadable) is skipped
    /// and named with its file, line, code and fix; the rest is imported.
    ///
    /// Exit status: 0 when every folder was imported, 1 when some were skipped (the rest is
    /// stored; with `--strict`, nothing is), 2 for usage or database errors.
    Import(ImportArgs),
    /// Write stored skills back as folders.
    Export(ExportArgs),
    /// List the stored skills.
    List(ListArgs),
    /// Show a stored skill: its details, files and `SKILL.md`.
    Show(ShowArgs),
    /// Search the stored skills (name, description, body).
    Search(SearchArgs),
    /// Will the right skill be chosen? Trigger evals run through the search ranking over a
    /// whole library, and descriptions that compete.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Show the revisions of a stored skill.
    History(NameArgs),
    /// Show what changed between two revisions of a stored skill.
    Diff(DiffArgs),
    /// Make an earlier revision of a skill current again (as a new revision).
    Rollback(RollbackArgs),
    /// Copy a stored skill or package under a new name, to adapt it; the copy records what it
    /// was copied from (name and revision). A package is copied with its member skills.
    Fork(ForkArgs),
    /// Delete a stored skill (a revision; `restore` brings it back).
    Delete(ReviseArgs),
    /// Bring a deleted skill back.
    Restore(ReviseArgs),
    /// Show the skills found in the standard skill folders of this project and user.
    Scan(ScanArgs),
    /// Find what skills hide before an agent follows them: hidden text, code fetched or
    /// decoded and run, secrets, instructions against the user, persistence, files that do not
    /// belong, unpinned installs, an `allowed-tools` that grants everything, descriptions that
    /// claim every task (every rule in `docs/audit.md`). Secrets are named by kind, never shown.
    ///
    /// Exit status: 0 when no finding is at or above `--fail-on` and every skill could be read,
    /// 1 when one is (or a skill could not be read), 2 for usage or database errors.
    Audit(AuditArgs),
    /// Serve the stored skills to agents over MCP (stdio, or Streamable HTTP with `--http`).
    ///
    /// At start, the skills of the standard skill folders (see `scan`) and of `--skills` folders
    /// are imported into the store; then every skill is a tool, a resource and a prompt. The
    /// folders are watched: edits, additions and removals reach the store and connected clients.
    /// The server serves the shared skills and those of the project it is started in, never
    /// another project's: project over the store's own skills over the user's.
    Serve(ServeArgs),
    /// Open the studio: the web pages where people browse, try, edit and review skills.
    ///
    /// `skillpath serve --http` on loopback (MCP at `/mcp`, the studio at `/`), and the page
    /// opened in a browser when there is one. Every `serve` option applies.
    Studio(StudioArgs),
    /// Manage the API keys that HTTP clients of `serve` present as `Authorization: Bearer sp_…`.
    ///
    /// Keys live in the store, so every server on the database knows them at once. A key is
    /// shown once, when it is created; only its SHA-256 is kept.
    Keys(KeysArgs),
    /// Sign in to a skillpath server with your organisation's identity provider (the device
    /// login: open the address it prints, enter the code), and keep the key it makes in
    /// `$XDG_CONFIG_HOME/skillpath/credentials.toml` (mode 0600), which `add --registry` and
    /// `mirror` then send to that server. `--token-file` keeps a key you have instead.
    ///
    /// Exit status: 0 signed in, 1 refused or expired, 2 usage or the server unreachable.
    Login(LoginArgs),
    /// Revoke the key `skillpath login` stored for a server, and forget it.
    ///
    /// Exit status: 0 signed out (or nothing stored), 1 the server refused, 2 unreachable.
    Logout(LogoutArgs),
    /// Manage the people of the instance: each has a handle, their own namespace `@HANDLE`,
    /// and API keys that act for them (`keys create --user`).
    Users(UsersArgs),
    /// Manage namespaces: `@team` for a team, `@HANDLE` for each person, `@global` for the
    /// instance. Every item belongs to one; its full name is `@namespace/name`.
    Namespaces(NamespacesArgs),
    /// Manage the members of a namespace and their roles: `reader`, `author`, `maintainer`
    /// (reviews and publishes drafts), `owner` (manages members and settings).
    Members(MembersArgs),
    /// Change who sees an item: `private` (its author and the namespace's maintainers),
    /// `namespace` (its members) or `public` (everyone). A logged action.
    Visibility(VisibilityArgs),
    /// Star a public item for a person: their agents are served it beside their namespaces'
    /// items, following its published revisions.
    Star(StarArgs),
    /// Remove a person's star.
    Unstar(StarArgs),
    /// Show the governance log: every change of people, keys, namespaces, members, roles,
    /// visibility, freeze and archive, and every publish, reject, delete, restore and
    /// rollback, with who, when and before/after. `log verify` checks its chain of digests.
    Log(LogArgs),
    /// Release a revision of an item as a semver version, with notes and tags: immutable, its
    /// files exactly the revision's.
    ///
    /// A version is never reused, and climbs its major line (a patch for an older line is
    /// fine); a minor or patch release whose arguments break calls the previous release took
    /// is refused, naming what breaks. Exit status: 0 released, 1 refused, 2 usage or database.
    Release(ReleaseArgs),
    /// List an item's releases (version, revision, author, yanked) and where its tags point.
    Releases(ReleasesArgs),
    /// Copy a registry's skills (a skillpath server, a SkillHub, clawhub.ai) into a namespace
    /// of this store, each version downloaded, checked against the registry's file digests,
    /// audited and released here as it is there, so a team vets public skills once and serves
    /// them itself. Exit status: 0 all copied, 1 some skipped (named), 2 usage or database.
    Mirror(MirrorArgs),
    /// Yank a release: hidden from ranges and tags, kept for the locks that pin it (installs
    /// say it was yanked, and why).
    Yank(YankArgs),
    /// Point a tag (a channel: `stable`, `beta`, …) at a release, or take it away; moving
    /// `latest` back is a rollback. A logged action, served at once.
    Tag(TagArgs),
    /// Bring the store's schema up to date now (any command does it when it opens the store),
    /// and place the items of a store made before namespaces in `--namespace`.
    ///
    /// Exit status: 0 upgraded or up to date, 1 when `--namespace` can no longer apply (an
    /// earlier upgrade placed the items), 2 for usage or database errors.
    Upgrade(UpgradeArgs),
    /// Show how the stored skills are used: tool calls, `load_skill` loads, prompt renders and
    /// resource reads counted by `serve` (written every few seconds and when it stops), by skill,
    /// revision, day or key; or, with `--unused`, the skills nobody used in that many days.
    Usage(UsageArgs),
    /// Show the drafts waiting for review (what author keys wrote on a server with `--review
    /// required`), or one draft with its diff from the revision it was made on.
    Review(ReviewArgs),
    /// Publish a draft: it becomes the item's next revision (or its first), served to every
    /// client. Refused, and kept, when someone published in between.
    ///
    /// Exit status: 0 published, 1 refused (stale, not found, audit), 2 usage or database errors.
    Publish(PublishArgs),
    /// Reject a draft with a message its author reads with it; their next save opens it again.
    Reject(DraftDecision),
    /// Install skills from a git repository or a folder: pin them in `skillpath.lock`, import
    /// them into the store and write them into your agents' skill folders.
    ///
    /// SOURCE: `owner/repo` (GitHub), a git URL (`https://…`, `git@host:path`, `ssh://…`,
    /// `file://…`) or a local repository, with a branch, tag or commit after `#` (or
    /// `--ref`); a `.tar.gz`, `.tar` or `.zip` (a file, or a URL with `--sha256`); a site that
    /// publishes `/.well-known/agent-skills/index.json` (every digest checked); or a local
    /// folder. The ref is resolved to a commit, which the lock records
    /// with every file's SHA-256. Every skill is audited on its way in (`--audit-policy`).
    ///
    /// Exit status: 0 when every skill asked for was installed, 1 when some were skipped or
    /// refused (the rest is installed), 2 for usage, source or database errors.
    Add(AddArgs),
    /// Write the locked skills into agents' skill folders: one copy in `.agents/skills`,
    /// links to it from every other agent's folder (`--copy`: copies).
    ///
    /// A folder with local edits, or one skillpath did not write, is left as it is and named.
    ///
    /// Exit status: 0 when every folder holds what the lock says, 1 when some were skipped.
    Sync(SyncArgs),
    /// Show each installed skill in each agent folder: clean, modified (with the diff),
    /// missing, conflicting, and whether its ref has moved on upstream.
    ///
    /// Exit status: 0 when everything is clean and current, 1 otherwise.
    Status(StatusArgs),
    /// Move installed skills to the newest commit of their locked ref: audit, import, re-lock,
    /// and replace their folders whole. A folder with local edits is never overwritten
    /// without `--force`; `--merge` merges the edits where they do not overlap.
    ///
    /// Exit status: 0 when every skill is current, 1 when some were left (edits, refusals).
    Update(UpdateArgs),
    /// Restore exactly what the lock says (`--frozen`, for CI and fresh clones), or only check
    /// the agents' folders against it (`--check`).
    ///
    /// `--frozen` fetches the locked commits and checks every file against the lock's
    /// digests before it writes anything. Exit status: 0 when the folders hold what the lock
    /// says, 1 when a file differs (each is named), 2 for usage or source errors.
    Install(InstallArgs),
    /// Take installed skills out of the lock and out of the folders skillpath wrote them to
    /// (never a folder it did not write).
    ///
    /// Exit status: 0 when every skill was removed, 1 when a folder was left (local edits).
    Remove(RemoveArgs),
    /// Print a shell completion script, e.g. `skillpath completions bash > ~/.local/share/bash-completion/completions/skillpath`.
    ///
    /// zsh: write it as `_skillpath` into a folder of `$fpath`; fish: into
    /// `~/.config/fish/completions/skillpath.fish`; PowerShell: add its output to `$PROFILE`.
    Completions(CompletionsArgs),
}

/// Whose skills the install commands work on.
#[derive(Debug, Clone, Args)]
pub(crate) struct InstallScopeArgs {
    /// The user's skills: the user's lock (`~/.config/skillpath/skillpath.lock`) and the
    /// agents' folders in the home folder.
    #[arg(long, short = 'g', conflicts_with = "project")]
    pub(crate) user: bool,
    /// The project's skills [the default]: `skillpath.lock` of the nearest folder up from
    /// here that has one, else of the repository root, else of this folder.
    #[arg(long)]
    pub(crate) project: bool,
}

/// Which agents' folders are written.
#[derive(Debug, Clone, Args)]
pub(crate) struct AgentArgs {
    /// An agent whose skill folder is written, by its id (`claude-code`, `codex`, `cursor`,
    /// `github-copilot`, `gemini-cli`, `opencode`, …; see the README's table); repeat it or
    /// separate ids with commas [default: the agents of the lock, else those installed].
    /// `.agents/skills` is always written. `add` and `sync` record the agents named in the lock,
    /// so `install --frozen` writes their folders too.
    #[arg(long = "agent", short = 'a', value_name = "ID", value_delimiter = ',')]
    pub(crate) agents: Vec<String>,
    /// Write a copy into each agent's folder instead of a link to the one in `.agents/skills`.
    #[arg(long, conflicts_with = "link")]
    pub(crate) copy: bool,
    /// Link each agent's folder to the copy in `.agents/skills` [the default].
    #[arg(long)]
    pub(crate) link: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// Where the skills are: `owner/repo`, a git URL or local repository (`#ref` optional), an
    /// archive, a site with a discovery index, a folder; or one skill of a registry, by version,
    /// range or tag: `@namespace/name[@1.2.3|@^1.2|@stable]` of a skillpath server (with
    /// `--registry`), `clawhub:SLUG[@…]` of any ClawHub-compatible registry (clawhub.ai unless
    /// `--registry` names another) [default request: `latest`].
    #[arg(required_unless_present = "from_lock")]
    pub(crate) source: Option<String>,
    /// Add everything another installer installed, from its lock: the `skills` CLI's
    /// `skills-lock.json` (version 1) or `~/.agents/.skill-lock.json` (version 3), or a folder
    /// of skills `gh skill` installed (their `metadata.github-*` frontmatter says where from).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["source", "skills", "reference", "path", "sha256"])]
    pub(crate) from_lock: Option<PathBuf>,
    /// The skills to install, by name [default: every skill of the source].
    #[arg(value_name = "SKILL")]
    pub(crate) skills: Vec<String>,
    /// The branch, tag or commit to install from [default: the default branch].
    #[arg(long = "ref", value_name = "REF")]
    pub(crate) reference: Option<String>,
    /// Only the skills under this folder of the source.
    #[arg(long, value_name = "PATH")]
    pub(crate) path: Option<String>,
    /// The SHA-256 of an archive source (hex, or `sha256:<hex>`); required for one fetched
    /// over the network, and checked before anything of it is read.
    #[arg(long, value_name = "HEX")]
    pub(crate) sha256: Option<String>,
    /// Pin and import only; do not write the agents' folders (`skillpath sync` does).
    #[arg(long)]
    pub(crate) no_sync: bool,
    /// The registry a `@namespace/name` or `clawhub:` source is read from: a skillpath server
    /// (`serve --http`), a SkillHub, clawhub.ai [default: `$SKILLPATH_REGISTRY`, else the
    /// registry the lock already installs from].
    #[arg(long, value_name = "URL")]
    pub(crate) registry: Option<String>,
    #[command(flatten)]
    pub(crate) token: RegistryTokenArgs,
    #[command(flatten)]
    pub(crate) placement: PlacementArgs,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// Also write this stored skill (not in the lock), by name (`@namespace/name` for one
    /// outside `@global`); repeat it for more.
    #[arg(long = "skill", value_name = "NAME")]
    pub(crate) skills: Vec<String>,
    /// Render Golden Path skills with a project's values before writing them: a TOML file
    /// with a table per skill of its arguments (`[add-endpoint]`, then `EntityName =
    /// "Order"`), for agents that read skills from folders and cannot call them over MCP.
    #[arg(long, value_name = "FILE")]
    pub(crate) values: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Do not ask the sources whether their refs moved on.
    #[arg(long)]
    pub(crate) offline: bool,
    #[command(flatten)]
    pub(crate) token: RegistryTokenArgs,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// The skills to update [default: every installed skill].
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,
    /// Replace folders with local edits (the edits are lost).
    #[arg(long, conflicts_with = "merge")]
    pub(crate) force: bool,
    /// Merge local edits with the update where they do not overlap; a folder whose edits
    /// overlap is left as it is and named with the files.
    #[arg(long)]
    pub(crate) merge: bool,
    #[command(flatten)]
    pub(crate) token: RegistryTokenArgs,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("mode").required(true).args(["frozen", "check"])))]
pub(crate) struct InstallArgs {
    /// Bring every agent folder to exactly what the lock says, from the locked commits,
    /// checking every file against the lock before writing anything.
    #[arg(long)]
    pub(crate) frozen: bool,
    /// Write nothing: name each file in the agents' folders that differs from the lock.
    #[arg(long)]
    pub(crate) check: bool,
    /// Render Golden Path skills with a project's values before writing them: a TOML file
    /// with a table per skill of its arguments (`[add-endpoint]`, then `EntityName =
    /// "Order"`), for agents that read skills from folders and cannot call them over MCP.
    #[arg(long, value_name = "FILE")]
    pub(crate) values: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) token: RegistryTokenArgs,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct RemoveArgs {
    /// The installed skills to remove.
    #[arg(value_name = "NAME", required = true)]
    pub(crate) names: Vec<String>,
    /// Also remove folders with local edits.
    #[arg(long)]
    pub(crate) force: bool,
    #[command(flatten)]
    pub(crate) agents: AgentArgs,
    #[command(flatten)]
    pub(crate) scope: InstallScopeArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// Arguments of `skillpath completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Options every reading command shares.
#[derive(Debug, Args)]
pub(crate) struct ReadOptions {
    /// Which rules to apply: `spec` (the specification, strictly), `lenient` (what a loader
    /// accepts; repairs unquoted `: ` in values) or `skills-ref` (the reference validator's exact
    /// verdicts and output).
    #[arg(long, default_value = "spec", value_parser = parse_mode)]
    pub(crate) mode: Mode,
    /// Refuse `SKILL.md` files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = skillpath_core::load::DEFAULT_MAX_FILE_SIZE)]
    pub(crate) max_file_size: u64,
}

fn parse_mode(value: &str) -> Result<Mode, String> {
    value.parse()
}

/// The longest `--sync-wait`: a client waiting longer for its first answer has given up.
const MAX_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// A wait such as `500ms`, `5s` or `1m` (`0` alone: no wait), at most [`MAX_WAIT`].
fn parse_wait(value: &str) -> Result<std::time::Duration, String> {
    let text = value.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let millis_per_unit = match unit {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" => Some(60_000),
        "" if number == "0" => Some(0),
        _ => None,
    };
    let wait = millis_per_unit
        .zip(number.parse::<u64>().ok())
        .and_then(|(per_unit, count)| count.checked_mul(per_unit))
        .map(std::time::Duration::from_millis)
        .ok_or_else(|| {
            format!(
                "`{text}` is not a duration: write a number and a unit, as in `500ms`, `5s` or `1m` (`0` never waits)"
            )
        })?;
    if wait > MAX_WAIT {
        return Err(format!(
            "`{text}` is too long a wait: at most {} s (`0` never waits)",
            MAX_WAIT.as_secs()
        ));
    }
    Ok(wait)
}

/// Output formats of `validate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    /// Diagnostics with source snippets, for people.
    Text,
    /// One JSON document, for scripts.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Skill folders or `SKILL.md` files (with `-r`, folders to search for skills).
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Search each PATH for skill folders (skipping `.git` and `node_modules`).
    #[arg(short, long)]
    pub(crate) recursive: bool,
    #[command(flatten)]
    pub(crate) read: ReadOptions,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub(crate) format: ReportFormat,
    /// Skip the authoring lints (body length, "when to use" clue, broken links).
    #[arg(long)]
    pub(crate) no_lints: bool,
    /// Show only errors, not warnings.
    #[arg(short, long)]
    pub(crate) quiet: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ReadPropertiesArgs {
    /// A skill folder or its `SKILL.md`.
    #[arg(value_name = "PATH")]
    pub(crate) path: PathBuf,
    #[command(flatten)]
    pub(crate) read: ReadOptions,
}

#[derive(Debug, Args)]
pub(crate) struct ToPromptArgs {
    /// Skill folders or their `SKILL.md` files.
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) read: ReadOptions,
}

/// Output formats of `catalog`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CatalogFormat {
    /// The client guide's `<available_skills>` XML block.
    Xml,
    /// A JSON array of `{name, description, location}`.
    Json,
    /// A markdown list.
    Markdown,
}

#[derive(Debug, Args)]
pub(crate) struct CatalogArgs {
    /// Skill folders, or folders to search for skills.
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CatalogFormat::Xml)]
    pub(crate) format: CatalogFormat,
    /// Fit the catalog into this many characters by shortening the longest descriptions first.
    /// Skills are never dropped; what was shortened is reported on stderr.
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<usize>,
    /// Which rules decide whether a skill can be listed (default: load what a client would).
    #[arg(long, default_value = "lenient", value_parser = parse_mode)]
    pub(crate) mode: Mode,
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// A skill folder or its `SKILL.md`.
    #[arg(value_name = "PATH")]
    pub(crate) path: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// A skill folder or its `SKILL.md`.
    #[arg(value_name = "PATH")]
    pub(crate) path: PathBuf,
    /// An argument value, as `name=value` (repeatable). Values are coerced to the argument's
    /// type: `--arg ttl_minutes=45`.
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = parse_key_value)]
    pub(crate) args: Vec<(String, String)>,
    /// Arguments as one JSON object: `--args-json '{"service_name": "Orders"}'`. `--arg`
    /// values win over it.
    #[arg(long, value_name = "JSON", value_parser = parse_json_object)]
    pub(crate) args_json: Option<serde_json::Map<String, serde_json::Value>>,
}

fn parse_key_value(value: &str) -> Result<(String, String), String> {
    value
        .split_once('=')
        .map(|(name, value)| (name.trim().to_owned(), value.to_owned()))
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, got `{value}`"))
}

fn parse_json_object(value: &str) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    match serde_json::from_str(value) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err("expected a JSON object such as {\"service_name\": \"Orders\"}".to_owned()),
        Err(error) => Err(format!("not valid JSON: {error}")),
    }
}

#[derive(Debug, Args)]
pub(crate) struct NewArgs {
    /// The skill's (or package's) name: lowercase letters, digits and hyphens (`add-caching`).
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    /// Scaffold a Golden Path skill: an argument, the structured body and a template file.
    #[arg(long, conflicts_with = "package")]
    pub(crate) golden_path: bool,
    /// Scaffold an architecture package: `PACKAGE.md` with a layer, an option and its member
    /// list, a documentation page, and one Golden Path member skill.
    #[arg(long)]
    pub(crate) package: bool,
    /// The folder to create the skill in.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub(crate) dir: PathBuf,
}

/// Which database to use.
#[derive(Debug, Clone, Args)]
pub(crate) struct DbArgs {
    /// The database: a SQLite file path, `sqlite://PATH`, or `postgres://USER@HOST:PORT/DB`
    /// (`?sslmode=verify-full&sslrootcert=CA.pem` as with psql) [default: the platform data
    /// directory, e.g.
    /// `~/.local/share/skillpath/skillpath.db`].
    #[arg(long, env = "SKILLPATH_DB", value_name = "PATH|URL")]
    pub(crate) db: Option<String>,
}

/// What the audit of a skill on its way into the store decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AuditPolicyArg {
    /// Do not audit; nothing is kept with the revision.
    Off,
    /// Write the skill and keep its findings with the revision; the report names them.
    Warn,
    /// Refuse a skill with a high or critical finding, naming the findings.
    BlockHigh,
    /// Refuse a skill with a critical finding, naming the findings.
    BlockCritical,
}

#[derive(Debug, Args)]
pub(crate) struct MirrorArgs {
    /// The registry to copy from (its base URL).
    #[arg(long, value_name = "URL")]
    pub(crate) registry: String,
    /// The namespace of this store the copies go into (it must exist).
    #[arg(long, value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: skillpath_model::Namespace,
    /// The skills to copy, by slug (`deploy`, `team--deploy`) [default: every skill the
    /// registry lists to the key].
    #[arg(value_name = "SLUG")]
    pub(crate) slugs: Vec<String>,
    /// Copy every version, not only the latest.
    #[arg(long)]
    pub(crate) all_versions: bool,
    #[command(flatten)]
    pub(crate) token: RegistryTokenArgs,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// The key sent to registries.
#[derive(Debug, Clone, Args)]
pub(crate) struct RegistryTokenArgs {
    /// A file holding the API key sent to registries (`Authorization: Bearer`) [default:
    /// `$SKILLPATH_TOKEN`; none for a registry anyone may read].
    #[arg(long, value_name = "PATH")]
    pub(crate) token_file: Option<PathBuf>,
}

/// The audit policy of a command that writes skills.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct AuditPolicyArgs {
    /// What a skill with audit findings (see `skillpath audit`) does on its way into the store.
    /// A refused skill is not written: an import goes on without it, a revision it would have
    /// made is not made. Deleting is never refused [default: `warn`; `block-high` for a
    /// `serve --http` whose requests need API keys: `--auth required`, or a non-loopback
    /// address].
    #[arg(
        long = "audit-policy",
        env = "SKILLPATH_AUDIT_POLICY",
        value_enum,
        value_name = "POLICY"
    )]
    pub(crate) policy: Option<AuditPolicyArg>,
}

impl AuditPolicyArgs {
    /// The policy given, or the default: `block-high` for a team server (`team`), `warn`
    /// otherwise.
    pub(crate) fn policy(self, team: bool) -> skillpath_audit::Policy {
        use skillpath_audit::Policy;
        match self.policy {
            Some(AuditPolicyArg::Off) => Policy::Off,
            Some(AuditPolicyArg::Warn) => Policy::Warn,
            Some(AuditPolicyArg::BlockHigh) => Policy::BlockHigh,
            Some(AuditPolicyArg::BlockCritical) => Policy::BlockCritical,
            None if team => Policy::BlockHigh,
            None => Policy::Warn,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ForkArgs {
    /// The skill or package to copy.
    pub(crate) from: String,
    /// The copy's name (kebab-case, used by no skill or package).
    pub(crate) name: String,
    /// The revision to copy [default: the current one].
    #[arg(long, value_name = "N")]
    pub(crate) revision: Option<u64>,
    /// For a package: what its members' copies' names start with [default: NAME and `-`].
    #[arg(long, value_name = "PREFIX")]
    pub(crate) member_prefix: Option<String>,
    /// The namespace the copies go into [default: the source's], visible to its members.
    #[arg(long, value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespace: Option<skillpath_model::Namespace>,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct UsageArgs {
    /// Only this skill's uses.
    pub(crate) name: Option<String>,
    /// Only the uses of the last N days (today counts as one) [default: every use].
    #[arg(long, value_name = "N")]
    pub(crate) days: Option<u64>,
    /// Sum the uses by skill, or by skill and revision, day or API key.
    #[arg(long, value_enum, default_value_t = UsageByArg::Skill)]
    pub(crate) by: UsageByArg,
    /// List the live skills and packages nobody used in the last N days instead, with when
    /// each was last used (if ever).
    #[arg(long, value_name = "N", conflicts_with_all = ["days", "by", "name"])]
    pub(crate) unused: Option<u64>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// What `usage` sums by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum UsageByArg {
    /// Each skill.
    Skill,
    /// Each skill's revisions.
    Revision,
    /// Each skill's days (UTC).
    Day,
    /// Each skill's API keys (`-` for uses without one).
    Key,
}

impl From<UsageByArg> for skillpath_store::usage::UsageGroup {
    fn from(by: UsageByArg) -> Self {
        match by {
            UsageByArg::Skill => Self::Skill,
            UsageByArg::Revision => Self::Revision,
            UsageByArg::Day => Self::Day,
            UsageByArg::Key => Self::Key,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ReviewArgs {
    /// The skill or package whose draft to show [default: list every draft].
    pub(crate) name: Option<String>,
    /// With NAME: the draft by this author, when the item has drafts by several.
    #[arg(long, value_name = "AUTHOR")]
    pub(crate) by: Option<String>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// Which draft `publish` or `reject` decides on, and who decides why.
#[derive(Debug, Args)]
pub(crate) struct DraftDecision {
    /// The skill or package whose draft it is.
    pub(crate) name: String,
    /// The draft by this author, when the item has drafts by several.
    #[arg(long, value_name = "AUTHOR")]
    pub(crate) by: Option<String>,
    /// Who decides, as the revision's message and the draft's review name them (the published
    /// revision's author is the draft's) [default: `$USER`].
    #[arg(long, value_name = "NAME")]
    pub(crate) author: Option<String>,
    /// Why: kept in the published revision's message; required to reject, since the draft's
    /// author reads it.
    #[arg(long, short, value_name = "TEXT")]
    pub(crate) message: Option<String>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct PublishArgs {
    #[command(flatten)]
    pub(crate) decision: DraftDecision,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
}

/// Who makes a change, and why.
#[derive(Debug, Args)]
pub(crate) struct ChangeArgs {
    /// The author recorded in the revision [default: `$USER`].
    #[arg(long, value_name = "NAME")]
    pub(crate) author: Option<String>,
    /// The message recorded in the revision.
    #[arg(long, short, value_name = "TEXT")]
    pub(crate) message: Option<String>,
}

/// Output formats of `audit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AuditFormat {
    /// Findings with source snippets, why they matter and the fix, for people.
    Text,
    /// One JSON document, for scripts.
    Json,
    /// SARIF 2.1.0, for code scanning tools.
    Sarif,
}

/// The severity at which `audit` fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    Low,
    Medium,
    High,
    Critical,
    /// Never: report only.
    None,
}

#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Skill folders, or folders to search for skills (`.git` and `node_modules` are skipped).
    #[arg(
        value_name = "PATH",
        required_unless_present = "store",
        conflicts_with = "store"
    )]
    pub(crate) paths: Vec<PathBuf>,
    /// Audit the stored skills (their current revisions) instead: every one, or those named.
    #[arg(long, num_args = 0.., value_name = "NAME")]
    pub(crate) store: Option<Vec<String>>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Text)]
    pub(crate) format: AuditFormat,
    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::High)]
    pub(crate) fail_on: FailOn,
    /// Leave out the findings this baseline file knows (by their fingerprints).
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Write the fingerprint of every finding to FILE, to accept them as known (the report is
    /// still printed; the exit status is 0).
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
}

/// Output formats of the store commands.
/// What a stored item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ItemKind {
    /// A skill.
    Skill,
    /// An architecture package.
    Package,
}

impl From<ItemKind> for skillpath_model::Kind {
    fn from(kind: ItemKind) -> Self {
        match kind {
            ItemKind::Skill => skillpath_model::Kind::Skill,
            ItemKind::Package => skillpath_model::Kind::Package,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// A table or text, for people.
    Text,
    /// JSON, for scripts.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// Skill folders, or folders to search for skills.
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Also import what `skillpath scan` finds in the standard skill folders (project ones first).
    #[arg(long)]
    pub(crate) discover: bool,
    /// Import nothing when a skill folder cannot be loaded (for CI): by default such folders
    /// are skipped, named with their diagnostics, and the rest is imported (exit status 1).
    #[arg(long)]
    pub(crate) strict: bool,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) placement: PlacementArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The skills to export [default: all live skills].
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,
    /// The folder to write `<name>/SKILL.md` and files into.
    #[arg(long, value_name = "DIR")]
    pub(crate) to: PathBuf,
    /// Overwrite skill folders that exist in the target.
    #[arg(long)]
    pub(crate) force: bool,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only names starting with this.
    #[arg(long, value_name = "TEXT")]
    pub(crate) prefix: Option<String>,
    /// Only skills, or only architecture packages (both when not given).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(crate) kind: Option<ItemKind>,
    /// Also list deleted skills.
    #[arg(long)]
    pub(crate) deleted: bool,
    /// Skills per page.
    #[arg(long, default_value_t = 100)]
    pub(crate) limit: usize,
    /// Continue after this cursor (printed at the end of the previous page).
    #[arg(long, value_name = "CURSOR")]
    pub(crate) cursor: Option<String>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The skill.
    pub(crate) name: String,
    /// Show this revision instead of the current one.
    #[arg(long, value_name = "N")]
    pub(crate) revision: Option<u64>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// Words to look for; any text works.
    pub(crate) query: String,
    /// Most results.
    #[arg(long, default_value_t = 10)]
    pub(crate) limit: usize,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    #[command(flatten)]
    pub(crate) embeddings: EmbeddingsArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Subcommand)]
pub(crate) enum EvalCommand {
    /// Runs every skill's `evals/trigger-evals.json` (`[{query, should_trigger}]`, the format of
    /// the standard's description guide and of skill-creator) and any `--queries` file
    /// (`[{query, skill|null}]`) through the ranking `search_skills` and `load_skill` use, over
    /// the whole library, and reports per skill recall@1 and @3, MRR, false triggers (near
    /// misses that ranked it first) and the skills that beat it, and the library's
    /// most-confused pairs. Exit 1 when a gate fails, 2 on a bad eval file (named with its row).
    Triggers(EvalTriggersArgs),
    /// Lists pairs of skills whose descriptions compete for the same requests: the cosine of
    /// their TF-IDF vectors over the library (words every description says weigh little), with
    /// the words they share.
    Overlap(EvalOverlapArgs),
}

/// The library an evaluation ranks within.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("library").required(true).args(["paths", "store"])))]
pub(crate) struct LibraryArgs {
    /// Skill folders or trees, read as one library (in a temporary store, as `import` reads
    /// them).
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// The store's skills (`--db`) instead, their current revisions.
    #[arg(long)]
    pub(crate) store: bool,
    #[command(flatten)]
    pub(crate) db: DbArgs,
}

#[derive(Debug, Args)]
pub(crate) struct EvalTriggersArgs {
    #[command(flatten)]
    pub(crate) library: LibraryArgs,
    /// A library-level query file: `[{"query": "...", "skill": "name" | null}]`, `null` where
    /// no skill is right. May be given more than once.
    #[arg(long, value_name = "FILE")]
    pub(crate) queries: Vec<PathBuf>,
    /// Gate: exit 1 when a skill with queries that should choose it has recall@1 below this
    /// (0 to 1).
    #[arg(long, value_name = "SHARE", value_parser = share)]
    pub(crate) min_recall: Option<f64>,
    /// Gate: exit 1 when a skill has more false triggers than this.
    #[arg(long, value_name = "N")]
    pub(crate) max_false: Option<usize>,
    #[command(flatten)]
    pub(crate) embeddings: EmbeddingsArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// Ranking by meaning beside the words a search matches.
#[derive(Debug, Args)]
pub(crate) struct EmbeddingsArgs {
    /// A static embedding model's folder (`bench/embedding/distill.py` makes one): searches
    /// rank the skills the query's words match fused with the skills nearest to it by meaning,
    /// which finds a skill that says what the query asks in other words.
    #[cfg(feature = "embeddings")]
    #[arg(long, value_name = "DIR")]
    pub(crate) embeddings: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct EvalOverlapArgs {
    #[command(flatten)]
    pub(crate) library: LibraryArgs,
    /// The similarity (0 to 1) from which a pair is listed; from 0.75 a pair is a near copy.
    #[arg(long, value_name = "SHARE", value_parser = share, default_value_t = skillpath_core::overlap::COMPETE)]
    pub(crate) threshold: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// A share from 0 to 1, as typed.
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if (0.0..=1.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a share from 0 to 1 (e.g. 0.8)")),
    }
}

#[derive(Debug, Args)]
pub(crate) struct NameArgs {
    /// The skill.
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The skill.
    pub(crate) name: String,
    /// The older revision: a number, or a released version (`1.2.0`).
    pub(crate) from: String,
    /// The newer revision, a number or a released version [default: the current one].
    pub(crate) to: Option<String>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format (`json`: `{"name", "from", "to", "diff"}`).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct RollbackArgs {
    /// The skill.
    pub(crate) name: String,
    /// The revision whose content becomes current again.
    #[arg(long, value_name = "N")]
    pub(crate) to: u64,
    #[command(flatten)]
    pub(crate) revise: ReviseOptions,
}

#[derive(Debug, Args)]
pub(crate) struct ReviseArgs {
    /// The skill.
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) revise: ReviseOptions,
}

/// Options of every command that writes a revision.
#[derive(Debug, Args)]
pub(crate) struct ReviseOptions {
    /// The revision you expect the skill to be at; refused if it changed since [default: the
    /// current revision].
    #[arg(long, value_name = "REVISION")]
    pub(crate) expect: Option<u64>,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ScanArgs {
    /// The project folder to start from [default: the current folder]; its parents up to the
    /// repository root are searched too.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Leave out the user's skill folders (`~/.agents/skills`, …).
    #[arg(long)]
    pub(crate) no_user: bool,
    /// Do not compare with the store: without this, the skills that `serve` would leave out
    /// for a stored skill of the same name (a user skill for one of the store's own, a stored
    /// shared skill for the project's) are reported too, when the database exists.
    #[arg(long)]
    pub(crate) no_store: bool,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// How skills become MCP tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ToolsArg {
    /// One tool per skill.
    PerSkill,
    /// Only `search_skills` and `load_skill` (for catalogs larger than a client's tool cap).
    Loader,
    /// One tool per skill up to `--tool-threshold` skills, the loader above.
    Auto,
}

/// Signing people in with the organisation's identity provider (OpenID Connect).
#[derive(Debug, Args)]
#[command(next_help_heading = "Signing in with an identity provider")]
pub(crate) struct OidcArgs {
    /// With `--http`: the OpenID provider people sign in to the studio with (its issuer URL:
    /// the discovery document is at `<URL>/.well-known/openid-configuration` and must name
    /// it). Needs `--oidc-client-id` and `--oidc-client-secret-file`.
    #[arg(long, value_name = "URL")]
    pub(crate) oidc_issuer: Option<String>,
    /// The client ID the provider knows this server by.
    #[arg(long, value_name = "ID", requires = "oidc_issuer")]
    pub(crate) oidc_client_id: Option<String>,
    /// A file holding the client's secret (its first line).
    #[arg(long, value_name = "PATH", requires = "oidc_issuer")]
    pub(crate) oidc_client_secret_file: Option<PathBuf>,
    /// The name the sign-in button shows ("Sign in with NAME").
    #[arg(long, value_name = "NAME", default_value = "your organisation")]
    pub(crate) oidc_name: String,
    /// The scopes asked for, space-separated or repeated.
    #[arg(
        long = "oidc-scope",
        value_name = "SCOPE",
        default_value = "openid profile email groups"
    )]
    pub(crate) oidc_scopes: Vec<String>,
    /// The ID token claim that lists a person's groups (a JSON list).
    #[arg(long, value_name = "CLAIM", default_value = "groups")]
    pub(crate) oidc_groups_claim: String,
    /// A group's members get a role in a namespace, made when missing
    /// (`platform=@platform:maintainer`), or administer the instance (`admins=admin`); set
    /// again at every sign-in (repeatable).
    #[arg(long = "oidc-group", value_name = "GROUP=@NS:ROLE|admin")]
    pub(crate) oidc_groups: Vec<String>,
    /// A TOML file of providers (several, each with its name) and group rules; see
    /// `docs/operations.md`, "Signing in with your identity provider".
    #[arg(long, value_name = "FILE")]
    pub(crate) oidc_config: Option<PathBuf>,
    /// The longest a provider may take to answer, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = skillpath_identity::DEFAULT_TIMEOUT.as_secs())]
    pub(crate) oidc_timeout: u64,
    /// How long a key `skillpath login` makes lives (`30d`, `12h`, …).
    #[arg(long, value_name = "DURATION", default_value = "90d")]
    pub(crate) login_key_lifetime: String,
    /// The studio's address as its users reach it (behind a proxy), which the sign-in's
    /// callback `/login/oidc/callback` is under [default: the address a request came to].
    #[arg(long, value_name = "URL")]
    pub(crate) public_url: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct LoginArgs {
    /// The server's address (`https://skills.example.com`, `http://127.0.0.1:8808`).
    #[arg(long, value_name = "URL")]
    pub(crate) server: String,
    /// Keep the key in this file (one line, `sp_…`: from the studio's key page or `skillpath
    /// keys create`) instead of signing in, once the server takes it.
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// The server's identity provider to sign in with, where it has several [default: the
    /// first with a device login].
    #[arg(long, value_name = "ID")]
    pub(crate) provider: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct LogoutArgs {
    /// The server to sign out of [default: the only one a key is stored for].
    #[arg(long, value_name = "URL")]
    pub(crate) server: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve Streamable HTTP at `http://ADDR/mcp` (and `/healthz`) instead of stdio
    /// [default ADDR: 127.0.0.1:8808].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8808")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// With `--http`: when requests need an API key (`Authorization: Bearer sp_…`, see
    /// `skillpath keys`). `auto` requires one on a non-loopback address; on loopback a request
    /// without one acts as the local user (who may do what an author may), and a request with
    /// one gets that key's role. `required` requires one everywhere.
    #[arg(long, value_enum, default_value_t = AuthArg::Auto)]
    pub(crate) auth: AuthArg,
    /// With `--http`, where keys are required: a request without a key reads, finds and is
    /// served the public items (as a reader of no namespace); every other request still needs
    /// a key.
    #[arg(long)]
    pub(crate) public_read: bool,
    /// With `--http`: the requests a minute one API key may make of the registry protocol
    /// (`/api/v1/…`, what the `clawhub` CLI calls); past it, `429` with `Retry-After`; 0: no
    /// limit.
    #[arg(long, value_name = "PER_MINUTE", default_value_t = skillpath_registry::RateLimits::default().per_key)]
    pub(crate) registry_rate_limit: u32,
    /// With `--http`: the requests a minute one client address may make of the registry
    /// protocol without a key; 0: no limit.
    #[arg(long, value_name = "PER_MINUTE", default_value_t = skillpath_registry::RateLimits::default().per_address)]
    pub(crate) registry_anonymous_rate_limit: u32,
    /// With `--http`: limit loopback clients too (by default a client on this machine is not
    /// limited; behind a proxy on this machine, set it).
    #[arg(long)]
    pub(crate) registry_rate_limit_loopback: bool,
    /// Serve only these namespaces (repeat for more): every caller is served, finds and writes
    /// the items of these alone, within what they may see [default: every namespace].
    #[arg(long = "namespace", value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespaces: Vec<skillpath_model::Namespace>,
    /// What is served of each item: the release a tag points at (`latest`, `stable`, `beta`,
    /// …; an item without that tag is served at `latest`, one without releases at its current
    /// revision), or `head`, every item's current revision (for authors) [default: latest].
    #[arg(long, value_name = "TAG|head", value_parser = channel)]
    pub(crate) channel: Option<skillpath_app::Channel>,
    /// With `--http`: whether what author keys create and update is a draft, served to nobody
    /// until a maintainer publishes it (`publish_skill`, `skillpath publish`) [default:
    /// `required` where every request needs a key, `off` otherwise]. Maintainers, admins and
    /// the local user (no key) write at once.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub(crate) review: Option<ReviewArg>,
    /// With `--http`: a `Host` header value to accept besides the loopback names (repeatable;
    /// needed behind a proxy or on a remote address).
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub(crate) allowed_hosts: Vec<String>,
    /// With `--http`: an `Origin` to accept besides loopback ones (repeatable; `http://host:*`
    /// allows any port).
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub(crate) allowed_origins: Vec<String>,
    /// With `--http`: keep no sessions, so any request can go to any of several replicas behind
    /// a load balancer. Clients of the 2025-11-25 protocol then get no notifications; those of
    /// 2026-07-28 get them on their `subscriptions/listen` stream as always.
    #[arg(long)]
    pub(crate) stateless: bool,
    /// More skill folders (or trees of them) to import at start and watch while serving
    /// (repeatable).
    #[arg(long = "skills", value_name = "DIR")]
    pub(crate) skills: Vec<PathBuf>,
    /// Do not import the standard skill folders of this project and user at start.
    #[arg(long)]
    pub(crate) no_discover: bool,
    /// How long the first answers (the handshake, the lists, skill calls) wait for the first
    /// sync of the skill folders when the store does not hold their skills yet (a new store, a
    /// new `--skills` folder, a newly discovered skill), so that a client's first listing holds
    /// them (`500ms`, `5s`, `1m`); past it the server answers from the store, says the catalog
    /// is still loading, and announces `list_changed` once the sync is in. `0` never waits. A
    /// store that holds them answers at once; edits made while no server ran follow with
    /// `list_changed`.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_wait)]
    pub(crate) sync_wait: std::time::Duration,
    /// Hide and refuse every tool that writes.
    #[arg(long)]
    pub(crate) read_only: bool,
    /// How skills become tools.
    #[arg(long, value_enum, default_value_t = ToolsArg::Auto)]
    pub(crate) tools: ToolsArg,
    /// With `--tools auto`: the most skills served as one tool each.
    #[arg(long, default_value_t = skillpath_server::DEFAULT_TOOL_THRESHOLD)]
    pub(crate) tool_threshold: usize,
    /// Items per page of every MCP list (a page also ends before 256 KiB).
    #[arg(long, default_value_t = 100)]
    pub(crate) page_size: usize,
    /// The largest skill a call renders, in bytes (a call past it is refused and says so).
    #[arg(long, value_name = "BYTES", default_value_t = RenderLimits::default().max_output_bytes)]
    pub(crate) max_render_bytes: usize,
    /// The longest argument value a call takes, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = RenderLimits::default().max_value_bytes)]
    pub(crate) max_argument_bytes: usize,
    /// The most skill content (`SKILL.md` and files), in MiB, kept in memory for the skills
    /// called and read most recently; others are read from the store when asked for.
    #[arg(long, value_name = "MIB", default_value_t = skillpath_server::DEFAULT_CONTENT_CACHE_BYTES / (1024 * 1024))]
    pub(crate) content_cache_mb: u64,
    /// When a skill call with required arguments missing or values outside their `enum` asks
    /// the user for them through a form (MCP elicitation), where the client can show one:
    /// `missing` asks for those; `always` also for every optional argument the call left out,
    /// for skills whose frontmatter says `metadata: {elicit: optional}`; `never` answers with
    /// the list of problems, as clients without forms get.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "missing")]
    pub(crate) elicit: ElicitArg,
    /// Seconds a user has to answer a form before the call is answered with the problems.
    #[arg(long, value_name = "SECONDS", default_value_t = skillpath_server::DEFAULT_ELICIT_TIMEOUT.as_secs())]
    pub(crate) elicit_timeout: u64,
    /// A file whose bytes (at least 32) seal the `requestState` a 2026-07-28 client echoes back
    /// after a form; replicas behind one address share it. Without it each process makes a
    /// random key, and a form answered through another replica is refused.
    #[arg(long, value_name = "FILE")]
    pub(crate) request_state_key: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) embeddings: EmbeddingsArgs,
    /// With `--http`: seconds a connection may take to send a request's headers (and stay idle
    /// between requests) before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = HttpLimits::default().header_timeout.as_secs())]
    pub(crate) header_timeout: u64,
    /// With `--http`: the most connections served at once (more wait to be accepted).
    #[arg(long, value_name = "N", default_value_t = HttpLimits::default().max_connections)]
    pub(crate) max_connections: usize,
    /// With `--http`: the most sessions kept at once (an `initialize` past it is answered 503
    /// with `Retry-After`).
    #[arg(long, value_name = "N", default_value_t = HttpLimits::default().max_sessions)]
    pub(crate) max_sessions: usize,
    /// Seconds a shutdown (SIGTERM, Ctrl-C) waits for the calls in flight to be answered;
    /// meanwhile new calls are refused (503 over HTTP). A second signal ends it at once; either
    /// way the usage counts are written first (within 2 s). Over stdio, also how long a server
    /// whose client closed stdin waits for its first folder sync.
    #[arg(long, value_name = "SECONDS", default_value_t = skillpath_server::DEFAULT_DRAIN.as_secs())]
    pub(crate) drain_timeout: u64,
    /// With `--http`: seconds a session may go without a request before it ends.
    #[arg(long, value_name = "SECONDS", default_value_t = HttpLimits::default().session_idle.as_secs())]
    pub(crate) session_idle: u64,
    /// With `--http`: do not serve the studio's web pages at `/` (only `/mcp` and the health
    /// checks).
    #[arg(long)]
    pub(crate) no_studio: bool,
    /// For the MCP conformance suite only: also serve the test tools, resources and prompts its
    /// scenarios call (`test_simple_text`, `test://static-text`, ...), next to the skills.
    // Only in a build with the `conformance-fixtures` feature (`scripts/test`'s).
    #[cfg(feature = "conformance-fixtures")]
    #[arg(long, hide = true)]
    pub(crate) conformance_fixtures: bool,
    #[command(flatten)]
    pub(crate) audit: AuditPolicyArgs,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    // Last: its heading names every option after it in `--help`.
    #[command(flatten)]
    pub(crate) oidc: OidcArgs,
}

#[derive(Debug, Args)]
pub(crate) struct StudioArgs {
    /// Do not open a browser; only print the studio's address.
    #[arg(long)]
    pub(crate) no_open: bool,
    #[command(flatten)]
    pub(crate) serve: ServeArgs,
}

#[derive(Debug, Args)]
pub(crate) struct KeysArgs {
    #[command(subcommand)]
    pub(crate) command: KeysCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Create a key and print it (once: it cannot be shown again).
    ///
    /// Roles: `reader` sees and calls skills; `author` also creates, updates, deletes and rolls
    /// back skills; `maintainer` also publishes drafts; `admin` also manages keys and people.
    /// A key acts for a person (`--user`): revisions made with it record the person's handle,
    /// and it reaches what the person's namespaces allow.
    Create(KeysCreateArgs),
    /// List the keys: name, role, prefix, dates and state (never the keys themselves).
    List(KeysListArgs),
    /// Revoke the active key with this name: every server refuses it from its next request on.
    Revoke(KeysRevokeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct KeysCreateArgs {
    /// The key's name (1 to 64 letters, digits, `-`, `_`, `.`, `@`), unique among active keys.
    #[arg(long, value_name = "NAME")]
    pub(crate) name: String,
    /// The person the key acts for (`skillpath users create` adds one). Without it, the person
    /// the key's name makes a handle of, added with the key's role in `@global` when there is
    /// none.
    #[arg(long, value_name = "HANDLE")]
    pub(crate) user: Option<String>,
    /// A namespace the key is narrowed to (repeat for more) [default: all of its person's].
    #[arg(long = "namespace", value_name = "@NAMESPACE", value_parser = namespace)]
    pub(crate) namespaces: Vec<skillpath_model::Namespace>,
    /// The most the key may do; its person's role in each namespace caps it further
    /// [default: author].
    #[arg(long, value_enum)]
    pub(crate) role: Option<RoleArg>,
    /// How long the key works, e.g. `90m`, `12h`, `30d`, `2w` [default: until revoked].
    #[arg(long, value_name = "LIFETIME", value_parser = skillpath_store::keys::parse_lifetime)]
    pub(crate) expires: Option<u64>,
    /// The channel the key's caller is served: a tag (`stable`, `beta`, …) or `head`
    /// [default: the server's `serve --channel`].
    #[arg(long, value_name = "TAG|head", value_parser = releases::channel)]
    pub(crate) channel: Option<skillpath_app::Channel>,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct KeysListArgs {
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

#[derive(Debug, Args)]
pub(crate) struct KeysRevokeArgs {
    /// The name of the key to revoke.
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) format: OutputFormat,
}

/// When HTTP requests need an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AuthArg {
    /// Required on non-loopback addresses, optional on loopback.
    Auto,
    /// Required everywhere.
    Required,
}

/// When a call asks the user for argument values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ElicitArg {
    /// Never: the call gets the list of problems.
    Never,
    /// For required arguments missing and values that are wrong.
    Missing,
    /// Also for the optional arguments left out, for skills that ask for them.
    Always,
}

/// Whether author keys' writes wait for review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReviewArg {
    /// Author keys write drafts; maintainers publish them.
    Required,
    /// Every write is published at once.
    Off,
}

/// A key's role, as typed.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum RoleArg {
    /// Sees and calls skills.
    Reader,
    /// Also creates, updates, deletes and rolls back skills (as drafts, where review is
    /// required).
    Author,
    /// Also publishes and rejects drafts, and writes without review.
    Maintainer,
    /// Also manages keys.
    Admin,
}

impl From<RoleArg> for skillpath_store::keys::Role {
    fn from(role: RoleArg) -> Self {
        match role {
            RoleArg::Reader => Self::Reader,
            RoleArg::Author => Self::Author,
            RoleArg::Maintainer => Self::Maintainer,
            RoleArg::Admin => Self::Admin,
        }
    }
}

#[cfg(test)]
mod tests {
    use skillpath_audit::Policy;

    use super::{AuditPolicyArg, AuditPolicyArgs};

    /// A team server refuses risky skills unless told otherwise; everywhere else the default
    /// warns; a policy given is the policy used.
    #[test]
    fn the_audit_policy_defaults_to_blocking_only_on_team_servers() {
        let unset = AuditPolicyArgs { policy: None };
        assert_eq!(unset.policy(false), Policy::Warn);
        assert_eq!(unset.policy(true), Policy::BlockHigh);
        let off = AuditPolicyArgs {
            policy: Some(AuditPolicyArg::Off),
        };
        assert_eq!(off.policy(true), Policy::Off);
    }
}
