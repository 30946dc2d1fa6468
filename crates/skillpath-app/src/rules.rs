//! The rules of who may do what, once: every operation with the role it needs and whether it
//! writes ([`Operation`]). The MCP server's tool table, the studio's pages and the CLI ask here
//! ([`crate::App::may`]) rather than compare roles themselves.

use skillpath_store::keys::Role;

use crate::caller::Caller;

/// Everything a caller can ask of the application. The operations that MCP offers as built-in
/// tools are named as those tools are ([`Operation::name`]); the others (restoring a deleted
/// skill, the usage report, saving files) are the command line's and the studio's, and no
/// tool: the server's tool table lists its tools itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// List the skills.
    ListSkills,
    /// Search the skills.
    SearchSkills,
    /// Read a skill (or a draft of it).
    GetSkill,
    /// Render a skill with its arguments.
    LoadSkill,
    /// Read a skill's revisions.
    SkillHistory,
    /// Check a skill without storing it.
    ValidateSkill,
    /// Plan a skill from a description.
    PlanSkill,
    /// Create a skill.
    CreateSkill,
    /// Update a skill.
    UpdateSkill,
    /// Delete a skill.
    DeleteSkill,
    /// Bring a deleted skill back (`skillpath restore`).
    RestoreSkill,
    /// Roll a skill back to an earlier revision's content.
    RollbackSkill,
    /// Copy a skill under a new name.
    ForkSkill,
    /// Import skill folders (`skillpath import`).
    ImportSkills,
    /// List the architecture packages.
    ListArchitectures,
    /// Read an architecture package.
    GetArchitecture,
    /// Match requirements against the packages.
    AnalyzeRequirements,
    /// Plan an architecture package.
    PlanArchitecture,
    /// Create an architecture package.
    CreateArchitecture,
    /// List the drafts waiting for review.
    ListDrafts,
    /// Publish a draft.
    PublishSkill,
    /// Reject a draft.
    RejectSkill,
    /// List the API keys.
    ListApiKeys,
    /// Create an API key.
    CreateApiKey,
    /// Revoke an API key.
    RevokeApiKey,
    /// List, create and revoke one's own keys (a person signed in; the studio's key page,
    /// `skillpath logout`).
    ManageOwnKeys,
    /// Save a skill's files as they were edited (the studio's editor).
    SaveFiles,
    /// Read how the skills are used, by skill, revision, day or the key that used them
    /// (`skillpath usage`).
    ReadUsage,
    /// Read the people, namespaces and members (what of them the caller may see).
    ReadDirectory,
    /// Change people, namespaces, members or visibility (who may change what is decided
    /// with the directory: `App::govern`).
    Govern,
    /// Star an item.
    StarSkill,
    /// Unstar an item.
    UnstarSkill,
    /// Read the governance log (an owner their namespaces' entries, an admin all).
    ReadLog,
    /// Releases a revision as a version, yanks a release, or moves a tag.
    ReleaseSkill,
    /// Reads an item's releases and tags.
    ListReleases,
}

impl Operation {
    /// The operation's name: a built-in tool's, for the operations MCP offers as tools.
    pub const fn name(self) -> &'static str {
        match self {
            Operation::ListSkills => "list_skills",
            Operation::SearchSkills => "search_skills",
            Operation::GetSkill => "get_skill",
            Operation::LoadSkill => "load_skill",
            Operation::SkillHistory => "skill_history",
            Operation::ValidateSkill => "validate_skill",
            Operation::PlanSkill => "plan_skill",
            Operation::CreateSkill => "create_skill",
            Operation::UpdateSkill => "update_skill",
            Operation::DeleteSkill => "delete_skill",
            Operation::RestoreSkill => "restore_skill",
            Operation::ImportSkills => "import_skills",
            Operation::RollbackSkill => "rollback_skill",
            Operation::ForkSkill => "fork_skill",
            Operation::ListArchitectures => "list_architectures",
            Operation::GetArchitecture => "get_architecture",
            Operation::AnalyzeRequirements => "analyze_requirements",
            Operation::PlanArchitecture => "plan_architecture",
            Operation::CreateArchitecture => "create_architecture",
            Operation::ListDrafts => "list_drafts",
            Operation::PublishSkill => "publish_skill",
            Operation::RejectSkill => "reject_skill",
            Operation::ListApiKeys => "list_api_keys",
            Operation::CreateApiKey => "create_api_key",
            Operation::RevokeApiKey => "revoke_api_key",
            Operation::ManageOwnKeys => "manage_own_keys",
            Operation::SaveFiles => "save_files",
            Operation::ReadUsage => "read_usage",
            Operation::ReadDirectory => "read_directory",
            Operation::Govern => "govern",
            Operation::StarSkill => "star_skill",
            Operation::UnstarSkill => "unstar_skill",
            Operation::ReadLog => "read_log",
            Operation::ReleaseSkill => "release_skill",
            Operation::ListReleases => "list_releases",
        }
    }

    /// The least role that may ask for it.
    pub const fn role(self) -> Role {
        match self {
            Operation::ListSkills
            | Operation::SearchSkills
            | Operation::GetSkill
            | Operation::LoadSkill
            | Operation::SkillHistory
            | Operation::ValidateSkill
            | Operation::PlanSkill
            | Operation::ListArchitectures
            | Operation::GetArchitecture
            | Operation::AnalyzeRequirements
            | Operation::PlanArchitecture
            // Decided against the directory by each operation (`ops::namespaces`).
            | Operation::ReadDirectory
            | Operation::Govern
            | Operation::StarSkill
            | Operation::UnstarSkill
            | Operation::ReadLog
            | Operation::ListReleases
            // A person's own keys: decided against the key's person (`ops::keys`).
            | Operation::ManageOwnKeys => Role::Reader,
            Operation::CreateSkill
            | Operation::UpdateSkill
            | Operation::DeleteSkill
            | Operation::RestoreSkill
            | Operation::RollbackSkill
            | Operation::ForkSkill
            | Operation::CreateArchitecture
            | Operation::ListDrafts
            | Operation::SaveFiles
            // An author's release is proposed where the namespace reviews, else refused; yanks
            // and tags are a maintainer's (decided against the namespace: `ops::releases`).
            | Operation::ReleaseSkill => Role::Author,
            // An import serves what it writes at once, with no draft to review: a publisher's.
            Operation::PublishSkill | Operation::RejectSkill | Operation::ImportSkills => {
                Role::Maintainer
            }
            // The usage report names the keys that used each skill, and what keys do is an
            // admin's to read, as the keys are (`last_used_at`).
            Operation::ListApiKeys
            | Operation::CreateApiKey
            | Operation::RevokeApiKey
            | Operation::ReadUsage => Role::Admin,
        }
    }

    /// Whether it writes: a read-only server refuses it.
    pub const fn writes(self) -> bool {
        matches!(
            self,
            Operation::CreateSkill
                | Operation::UpdateSkill
                | Operation::DeleteSkill
                | Operation::RestoreSkill
                | Operation::RollbackSkill
                | Operation::ForkSkill
                | Operation::ImportSkills
                | Operation::CreateArchitecture
                | Operation::PublishSkill
                | Operation::RejectSkill
                | Operation::CreateApiKey
                | Operation::RevokeApiKey
                | Operation::ManageOwnKeys
                | Operation::SaveFiles
                | Operation::Govern
                | Operation::StarSkill
                | Operation::UnstarSkill
                | Operation::ReleaseSkill
        )
    }

    /// What a refusal calls it: the tool's name in backticks, or what the studio's editor does.
    pub fn what(self) -> String {
        match self {
            Operation::SaveFiles => "changing a skill".to_owned(),
            operation => format!("`{}`", operation.name()),
        }
    }
}

/// Proof that the rules let a caller ask for an operation: made only by [`crate::App::may`],
/// and taken by every operation instead of the caller, so that no operation runs before the
/// rule is decided and none decides it again.
#[derive(Debug, Clone)]
pub struct Permit {
    pub(crate) caller: Caller,
    pub(crate) operation: Operation,
}

impl Permit {
    /// Who the permit is for.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// What it lets them ask for.
    pub fn operation(&self) -> Operation {
        self.operation
    }
}

impl Caller {
    /// Whether the caller's role is enough for `operation`, whatever the server allows (a
    /// read-only server refuses every write anyway: [`crate::App::may`]).
    pub fn holds(&self, operation: Operation) -> bool {
        self.role >= operation.role()
    }
}
