//! Revisions: who made a change and why, and what each revision did.

/// Who made a change, and why.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// A user, an API key's name, or `import`.
    pub author: String,
    /// What the change is for.
    pub message: String,
}

/// What a revision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// The first revision.
    Create,
    /// New content.
    Update,
    /// The skill was deleted (its content stays in history).
    Delete,
    /// A deleted skill came back.
    Restore,
    /// The content of an earlier revision, as a new revision.
    Rollback,
}

impl Operation {
    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Restore => "restore",
            Operation::Rollback => "rollback",
        }
    }

    /// The operation a stored name stands for.
    pub fn parse(text: &str) -> Option<Operation> {
        [
            Operation::Create,
            Operation::Update,
            Operation::Delete,
            Operation::Restore,
            Operation::Rollback,
        ]
        .into_iter()
        .find(|op| op.as_str() == text)
    }
}

/// One revision of a skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Revision {
    /// The skill's name.
    pub skill: String,
    /// 1, 2, 3, … per skill.
    pub number: u64,
    /// When (RFC 3339, UTC).
    pub created_at: String,
    /// Who.
    pub author: String,
    /// Why.
    pub message: String,
    /// What it did.
    pub operation: Operation,
    /// Hash of the content after the revision.
    pub content_hash: String,
}
