//! Signing a person in from an identity provider's account, against a real SQLite store: the
//! person made at the first sign-in and found by the account's link after it, whatever its
//! names become; the groups' mapping applied at every sign-in; a taken handle, an account with
//! no name and a disabled person refused with nothing created.

use skillpath_app::{
    Account, App, AppOptions, Caller, GroupRule, KeyUse, Meaning, MemberRole, Namespace, Operation,
};
use skillpath_store::directory::{Governance, LogFilter};

use skillpath_app::Permit;
use skillpath_store::Store;

/// A new SQLite store in `dir`.
async fn store(dir: &tempfile::TempDir) -> std::sync::Arc<dyn Store> {
    std::sync::Arc::new(
        skillpath_store::SqliteStore::open(&dir.path().join("store.db")).expect("open the store"),
    )
}

fn permit(app: &App, caller: &Caller, operation: Operation) -> Permit {
    app.may(caller, operation).expect("permitted")
}

fn account(username: Option<&str>, email: Option<&str>, groups: &[&str]) -> Account {
    Account {
        provider: "company".to_owned(),
        issuer: "https://id.example".to_owned(),
        subject: "sub-1".to_owned(),
        username: username.map(str::to_owned),
        email: email.map(str::to_owned),
        name: Some("Carol Example".to_owned()),
        groups: groups.iter().map(|group| (*group).to_owned()).collect(),
    }
}

const KEY: KeyUse = KeyUse::Studio {
    lifetime_secs: 3600,
};

fn rules() -> Vec<GroupRule> {
    [
        "platform=@platform:maintainer",
        "platform=admin",
        "devs=@platform:author",
        "devs=@apps:author",
    ]
    .into_iter()
    .map(|rule| GroupRule::parse(rule).expect("a rule"))
    .collect()
}

async fn app(dir: &tempfile::TempDir) -> App {
    App::new(
        store(dir).await,
        &Meaning::default(),
        AppOptions::default(),
        Box::new(|| ()),
    )
    .await
    .expect("the application")
}

fn ns(name: &str) -> Namespace {
    Namespace::parse(name).expect("a namespace")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_becomes_a_person_whose_groups_set_their_memberships() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = app(&dir).await;
    let first = app
        .sign_in(
            account(
                None,
                Some("Carol.Example@corp.example"),
                &["platform", "devs"],
            ),
            &rules(),
            KEY,
        )
        .await
        .expect("signed in");
    assert_eq!(
        first.handle, "carol-example",
        "the email's local part, by the name rule"
    );
    assert!(first.created);
    let directory = app.people().await.expect("people").directory.clone();
    assert_eq!(
        directory.role("carol-example", &ns("platform")),
        Some(MemberRole::Maintainer),
        "the highest role its groups give"
    );
    assert_eq!(
        directory.role("carol-example", &ns("apps")),
        Some(MemberRole::Author)
    );
    assert!(directory.user("carol-example").expect("made").admin);
    let caller = app
        .authenticate(&first.key.key)
        .await
        .expect("the key works");
    assert_eq!(caller.user.as_deref(), Some("carol-example"));

    // Renamed at the provider and out of `platform`: the same person, fewer memberships.
    let again = app
        .sign_in(
            account(Some("someone-else"), None, &["devs"]),
            &rules(),
            KEY,
        )
        .await
        .expect("signed in again");
    assert_eq!(again.handle, "carol-example");
    assert!(!again.created);
    let directory = app.people().await.expect("people").directory.clone();
    assert_eq!(
        directory.role("carol-example", &ns("platform")),
        Some(MemberRole::Author)
    );
    assert!(!directory.user("carol-example").expect("kept").admin);
    assert!(directory.user("someone-else").is_none());
    let log = app
        .governance_log(
            &permit(&app, &Caller::owner("admin".to_owned()), Operation::ReadLog),
            LogFilter::default(),
        )
        .await
        .expect("the log");
    let actions: Vec<(&str, &str)> = log
        .iter()
        .filter(|entry| entry.action.target.contains("carol-example"))
        .map(|entry| (entry.action.actor.as_str(), entry.action.action.as_str()))
        .collect();
    assert!(
        actions.contains(&("oidc:company", "member.role")),
        "{actions:?}"
    );
    assert!(
        actions.contains(&("oidc:company", "user.admin")),
        "{actions:?}"
    );
    assert!(
        actions.iter().all(|(actor, _)| *actor == "oidc:company"),
        "{actions:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taken_names_nameless_accounts_and_disabled_people_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = app(&dir).await;
    let owner = Caller::owner("admin".to_owned());
    let person = Governance::CreateUser {
        handle: "carol".to_owned(),
        display_name: String::new(),
        admin: false,
    };
    app.govern(&permit(&app, &owner, Operation::Govern), person)
        .await
        .expect("carol");
    let logged = || async {
        app.governance_log(
            &permit(&app, &owner, Operation::ReadLog),
            LogFilter::default(),
        )
        .await
        .expect("the log")
        .len()
    };
    let before = logged().await;
    let taken = app
        .sign_in(
            account(None, Some("carol@corp.example"), &["platform"]),
            &rules(),
            KEY,
        )
        .await
        .expect_err("carol is another person");
    assert!(
        taken.to_string().contains("already another person's"),
        "{taken}"
    );
    let nameless = app
        .sign_in(account(None, None, &[]), &rules(), KEY)
        .await
        .expect_err("no name");
    assert!(
        nameless.to_string().contains("preferred_username"),
        "{nameless}"
    );
    let unhandled = app
        .sign_in(account(Some("!!!"), None, &[]), &rules(), KEY)
        .await
        .expect_err("no handle");
    assert!(
        unhandled.to_string().contains("makes no handle"),
        "{unhandled}"
    );
    assert_eq!(logged().await, before, "nothing was created");
    assert!(
        app.people()
            .await
            .expect("people")
            .directory
            .namespace(&ns("platform"))
            .is_none()
    );

    let signed = app
        .sign_in(account(Some("dana"), None, &[]), &rules(), KEY)
        .await
        .expect("dana");
    let disable = Governance::SetDisabled {
        handle: signed.handle.clone(),
        disabled: true,
    };
    app.govern(&permit(&app, &owner, Operation::Govern), disable)
        .await
        .expect("disabled");
    let refused = app
        .sign_in(account(Some("dana"), None, &[]), &rules(), KEY)
        .await
        .expect_err("disabled");
    assert!(refused.to_string().contains("dana"), "{refused}");
    assert!(
        app.authenticate(&signed.key.key).await.is_err(),
        "the key stopped"
    );
}

/// Two first sign-ins of one account at once (two tabs): one person, both signed in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_first_sign_ins_at_once_make_one_person() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = app(&dir).await;
    let rules = rules();
    let (first, second) = tokio::join!(
        app.sign_in(account(Some("erin"), None, &["devs"]), &rules, KEY),
        app.sign_in(account(Some("erin"), None, &["devs"]), &rules, KEY),
    );
    let (first, second) = (first.expect("one"), second.expect("the other"));
    assert_eq!(
        (first.handle.as_str(), second.handle.as_str()),
        ("erin", "erin")
    );
    assert_eq!(
        [first.created, second.created]
            .iter()
            .filter(|made| **made)
            .count(),
        1,
        "one of them made the person"
    );
    assert_ne!(
        first.key.info.name, second.key.info.name,
        "each its own key"
    );
}
