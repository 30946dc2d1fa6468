//! What the application's test files share: a new store, callers and their permits, and the
//! skills and changes they write.

use std::sync::Arc;

use skillpath_app::{App, Caller, KeyInfo, Operation, Permit, Role, SkillSnapshot};
use skillpath_model::{Change, MemberRole, Namespace};
use skillpath_store::directory::Governance;
use skillpath_store::{SqliteStore, Store};

/// The people the tests' keys act for ([`key`]): owners of `@global`, so that each key's
/// role is what it may do there; `root` and `ci` are instance admins.
const PEOPLE: [&str; 11] = [
    "r", "a", "m", "root", "ci", "alice", "bob", "rita", "ann", "x", "y",
];

/// A new store in `dir`, with [`PEOPLE`].
pub(crate) async fn store(dir: &tempfile::TempDir) -> Arc<dyn Store> {
    let store = SqliteStore::open(&dir.path().join("store.db")).expect("open the store");
    for handle in PEOPLE {
        let person = Governance::CreateUser {
            handle: handle.to_owned(),
            display_name: String::new(),
            admin: matches!(handle, "root" | "ci"),
        };
        store.govern(person, "test").await.expect("a person");
        let member = Governance::AddMember {
            namespace: Namespace::global(),
            handle: handle.to_owned(),
            role: MemberRole::Owner,
        };
        store.govern(member, "test").await.expect("a member");
    }
    Arc::new(store)
}

/// The caller of a key named `name` with `role`.
pub(crate) fn key(name: &str, role: Role) -> Caller {
    Caller::of_key(KeyInfo {
        name: name.to_owned(),
        prefix: format!("sp_{name}"),
        role,
        created_at: "2026-01-01T00:00:00Z".to_owned(),
        expires_at: None,
        last_used_at: None,
        revoked_at: None,
        user: name.to_owned(),
        namespaces: None,
        channel: None,
    })
}

/// The permit the rules give `caller` for `operation`, which the test expects them to give.
pub(crate) fn permit(app: &App, caller: &Caller, operation: Operation) -> Permit {
    app.may(caller, operation).expect("permitted")
}

/// A plain skill `name` with `description`.
pub(crate) fn skill(name: &str, description: &str) -> SkillSnapshot {
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n\nDo the thing.\n");
    SkillSnapshot::new(text, Vec::new()).expect("a snapshot")
}

/// A change by `test` with `message`.
pub(crate) fn change(message: &str) -> Change {
    Change {
        author: "test".to_owned(),
        message: message.to_owned(),
    }
}
