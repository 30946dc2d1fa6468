//! The application's rules and operations through its typed API, against a real SQLite store
//! in a temporary folder: who may do what in each role, keys, review and rollback.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use skillpath_app::{
    App, AppError, AppOptions, Caller, ForkRequest, Meaning, Operation, Provenance, Role,
    SkillSnapshot, StoreError, Written, read_spec,
};
mod support;

use support::{change, key, permit, skill, store};

/// An application over a new store in `dir`, and how many times it announced a change.
async fn app(dir: &tempfile::TempDir, options: AppOptions) -> (App, Arc<AtomicUsize>) {
    let store = store(dir).await;
    let announced = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&announced);
    let announce = Box::new(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let app = App::new(store, &Meaning::default(), options, announce)
        .await
        .expect("the application");
    (app, announced)
}

async fn create(app: &App, name: &str) {
    create_snapshot(app, skill(name, "Use when testing.")).await;
}

/// Stores `snapshot` as a new item made through the API, and refreshes the catalog.
async fn create_snapshot(app: &App, snapshot: SkillSnapshot) {
    app.store()
        .create(snapshot, Provenance::Api, change("add"))
        .await
        .expect("create");
    app.refresh().await.expect("refresh");
}

/// Each role may do what its operations need and nothing more; the local user is an author.
#[tokio::test]
async fn each_role_may_do_what_its_operations_need() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = app(&dir, AppOptions::default()).await;
    let reader = key("r", Role::Reader);
    let author = key("a", Role::Author);
    let maintainer = key("m", Role::Maintainer);
    let admin = key("root", Role::Admin);
    let may = |caller: &Caller| {
        [
            Operation::GetSkill,
            Operation::UpdateSkill,
            Operation::PublishSkill,
            Operation::CreateApiKey,
        ]
        .map(|operation| app.allows(caller, operation))
    };
    assert_eq!(may(&reader), [true, false, false, false]);
    assert_eq!(may(&author), [true, true, false, false]);
    assert_eq!(may(&maintainer), [true, true, true, false]);
    assert_eq!(may(&admin), [true, true, true, true]);
    assert_eq!(may(&Caller::local()), [true, true, false, false]);

    let refused = app
        .may(&reader, Operation::UpdateSkill)
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "`update_skill` needs an API key with the `author` role; the key `r` is a `reader`"
    );
    let refused = app
        .may(&Caller::local(), Operation::ListApiKeys)
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "`list_api_keys` needs an API key with the `admin` role (create one with `skillpath keys create --role admin`)"
    );
}

/// A read-only server refuses every write, whoever asks, and reads as before.
#[tokio::test]
async fn a_read_only_server_refuses_every_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = AppOptions {
        read_only: true,
        ..AppOptions::default()
    };
    let (app, _) = app(&dir, options).await;
    let admin = key("root", Role::Admin);
    assert!(app.allows(&admin, Operation::GetSkill));
    let refused = app
        .may(&admin, Operation::CreateApiKey)
        .expect_err("refused");
    assert!(matches!(
        refused,
        AppError::ReadOnly(Operation::CreateApiKey)
    ));
    assert_eq!(
        refused.to_string(),
        "`create_api_key` writes, and this server is read-only"
    );
    let refused = app.may(&admin, Operation::SaveFiles).expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "this server is read-only: it writes no skill"
    );
}

/// An admin creates, lists and revokes keys; a created key authenticates as its role until
/// it is revoked; a reader may not manage keys.
#[tokio::test]
async fn admins_manage_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = app(&dir, AppOptions::default()).await;
    let admin = key("root", Role::Admin);
    let created = app
        .create_key(
            &permit(&app, &admin, Operation::CreateApiKey),
            "ci",
            "maintainer",
            Some("30d"),
        )
        .await
        .expect("create");
    assert_eq!(created.info.name, "ci");
    let caller = app.authenticate(&created.key).await.expect("a valid key");
    assert_eq!(
        (caller.key.as_deref(), caller.role),
        (Some("ci"), Role::Maintainer)
    );

    let listed = app
        .list_keys(&permit(&app, &admin, Operation::ListApiKeys))
        .await
        .expect("list");
    assert_eq!(
        listed.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
        ["ci"]
    );
    let refused = app
        .may(&key("r", Role::Reader), Operation::ListApiKeys)
        .expect_err("refused");
    assert!(matches!(refused, AppError::Forbidden { .. }));

    let wrong = app
        .create_key(
            &permit(&app, &admin, Operation::CreateApiKey),
            "x",
            "owner",
            None,
        )
        .await
        .expect_err("refused");
    assert_eq!(
        wrong.to_string(),
        "`owner` is not a role: use `reader`, `author` or `admin`"
    );
    let wrong = app
        .create_key(
            &permit(&app, &admin, Operation::CreateApiKey),
            "x",
            "reader",
            Some("soon"),
        )
        .await
        .expect_err("refused");
    assert!(matches!(wrong, AppError::Lifetime(_)), "{wrong}");

    app.revoke_key(&permit(&app, &admin, Operation::RevokeApiKey), "ci")
        .await
        .expect("revoke");
    assert!(app.authenticate(&created.key).await.is_err());
}

/// On a server that reviews, an author's save is a draft that only they and maintainers see;
/// a maintainer publishes it, which the catalog serves at once and announces; an author may
/// not publish.
#[tokio::test]
async fn a_reviewer_publishes_an_authors_draft() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = AppOptions {
        review: true,
        ..AppOptions::default()
    };
    let (app, announced) = app(&dir, options).await;
    create(&app, "greet").await;
    let alice = key("alice", Role::Author);
    let bob = key("bob", Role::Author);
    let reviewer = key("rita", Role::Maintainer);

    let edited = skill("greet", "Use when greeting someone.");
    let written = app
        .save_files(
            &permit(&app, &alice, Operation::SaveFiles),
            "greet",
            1,
            edited,
            "say when".to_owned(),
        )
        .await
        .expect("save");
    assert!(matches!(written, Written::Drafted(ref d) if d.author == "alice" && d.base == 1));
    assert_eq!(app.catalog().skill("greet").expect("greet").revision, 1);

    let seen = |caller: &Caller| {
        let app = app.clone();
        let caller = caller.clone();
        async move {
            let drafts = app.drafts_seen_by(&caller, None).await.expect("drafts");
            drafts.into_iter().map(|d| d.author).collect::<Vec<_>>()
        }
    };
    assert_eq!(seen(&alice).await, ["alice"]);
    assert!(seen(&bob).await.is_empty());
    assert!(seen(&key("r", Role::Reader)).await.is_empty());
    assert_eq!(seen(&reviewer).await, ["alice"]);
    let hidden = app
        .draft(
            &permit(&app, &bob, Operation::GetSkill),
            "greet",
            Some("alice"),
        )
        .await
        .expect_err("hidden");
    assert!(matches!(
        hidden,
        AppError::Store(StoreError::DraftNotFound { author: None, .. })
    ));

    let refused = app.may(&bob, Operation::PublishSkill).expect_err("refused");
    assert!(matches!(
        refused,
        AppError::Forbidden {
            operation: Operation::PublishSkill,
            ..
        }
    ));

    let before = announced.load(Ordering::SeqCst);
    let published = app
        .publish(
            &permit(&app, &reviewer, Operation::PublishSkill),
            "greet",
            Some("alice"),
            "looks right".to_owned(),
        )
        .await
        .expect("publish");
    assert_eq!(published.revision, 2);
    let served = app.catalog();
    let greet = served.skill("greet").expect("greet");
    assert_eq!(
        (greet.revision, greet.description.as_str()),
        (2, "Use when greeting someone.")
    );
    assert!(announced.load(Ordering::SeqCst) > before);
    assert!(seen(&reviewer).await.is_empty());
}

/// A rollback by a maintainer is stored at once; a stale save is refused with the revision
/// the skill is at, so that the editor can merge.
#[tokio::test]
async fn rollbacks_and_stale_saves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = app(&dir, AppOptions::default()).await;
    create(&app, "greet").await;
    let maintainer = key("m", Role::Maintainer);
    let edited = skill("greet", "Use when greeting someone.");
    let saving = permit(&app, &maintainer, Operation::SaveFiles);
    app.save_files(&saving, "greet", 1, edited.clone(), String::new())
        .await
        .expect("save");
    let stale = app
        .save_files(&saving, "greet", 1, edited, String::new())
        .await
        .expect_err("stale");
    assert!(matches!(
        stale,
        AppError::Store(StoreError::StaleRevision { actual: 2, .. })
    ));

    let written = app
        .rollback(
            &permit(&app, &maintainer, Operation::RollbackSkill),
            "greet",
            1,
            2,
            None,
        )
        .await
        .expect("rollback");
    assert!(matches!(written, Written::Stored(ref s) if s.revision == 3));
    let history = app
        .history(&permit(&app, &maintainer, Operation::SkillHistory), "greet")
        .await
        .expect("history");
    assert_eq!(history.len(), 3);
    let back = app
        .revision(
            &permit(&app, &maintainer, Operation::GetSkill),
            "greet",
            None,
        )
        .await
        .expect("read");
    assert_eq!(back.description, "Use when testing.");

    let refused = app
        .may(&key("r", Role::Reader), Operation::RollbackSkill)
        .expect_err("refused");
    assert!(matches!(refused, AppError::Forbidden { .. }));
    // A permit for another operation lets through no more than this one's rule allows.
    let reading = permit(&app, &key("r", Role::Reader), Operation::GetSkill);
    let refused = app
        .rollback(&reading, "greet", 1, 3, None)
        .await
        .expect_err("refused");
    assert!(matches!(
        refused,
        AppError::Forbidden {
            operation: Operation::RollbackSkill,
            ..
        }
    ));
}

/// A save whose `SKILL.md` a loader would skip stores nothing and says why.
#[tokio::test]
async fn an_unloadable_save_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (app, _) = app(&dir, AppOptions::default()).await;
    create(&app, "greet").await;
    let broken =
        SkillSnapshot::new("---\nname: other\n---\n".to_owned(), Vec::new()).expect("a snapshot");
    let refused = app
        .save_files(
            &permit(&app, &Caller::local(), Operation::SaveFiles),
            "greet",
            1,
            broken,
            String::new(),
        )
        .await
        .expect_err("refused");
    assert!(matches!(refused, AppError::Unloadable(_)), "{refused}");
    assert!(
        refused
            .to_string()
            .starts_with("the skill could not be loaded, so nothing was saved; fix these")
    );
}

/// A skill from structured data is checked, created, forked and deleted; what no draft can hold
/// is a maintainer's on a server that reviews; data with a NUL character is refused as it is
/// read.
#[tokio::test]
async fn skills_from_structured_data_are_created_forked_and_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (library, _) = app(&dir, AppOptions::default()).await;
    let author = key("alice", Role::Author);
    let spec = read_spec(serde_json::json!({
        "name": "add-caching",
        "description": "Use when a service needs a cache in front of its database.",
        "summary": "Adds a cache.",
    }))
    .expect("a spec");
    let checked = library
        .validate_skill(&permit(&library, &author, Operation::ValidateSkill), &spec)
        .expect("valid");
    assert!(checked.to_string().starts_with("The skill is valid"));
    let created = library
        .create_skill(
            &permit(&library, &author, Operation::CreateSkill),
            &spec,
            None,
            skillpath_app::Placement::global(),
        )
        .await
        .expect("create");
    assert!(matches!(created.written, Written::Stored(ref s) if s.revision == 1));
    assert!(library.catalog().tool("add-caching").is_some());

    let request = ForkRequest {
        from: "add-caching".to_owned(),
        revision: None,
        name: "add-redis-caching".to_owned(),
        member_prefix: None,
        into: None,
    };
    let forks = library
        .fork(
            &permit(&library, &author, Operation::ForkSkill),
            request,
            None,
        )
        .await
        .expect("fork");
    assert_eq!(forks.len(), 1);
    let deleted = library
        .delete(
            &permit(&library, &author, Operation::DeleteSkill),
            "add-caching",
            1,
            None,
        )
        .await
        .expect("delete");
    assert!(deleted.deleted);
    assert!(library.catalog().skill("add-caching").is_none());
    assert!(library.catalog().skill("add-redis-caching").is_some());

    let nul =
        read_spec(serde_json::json!({"name": "x", "description": "a\u{0}b"})).expect_err("refused");
    assert_eq!(
        nul.to_string(),
        "`description` contains a NUL character (U+0000); a skill is text: remove it"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let reviewing = AppOptions {
        review: true,
        ..AppOptions::default()
    };
    let (reviewed, _) = app(&dir, reviewing).await;
    create(&reviewed, "greet").await;
    let refused = reviewed
        .delete(
            &permit(&reviewed, &author, Operation::DeleteSkill),
            "greet",
            1,
            None,
        )
        .await
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "this server reviews what authors write, and a deletion cannot wait for review: ask a maintainer to delete `greet`"
    );
}

/// A Golden Path skill with one required argument, `who`, written `{Who}` in its body.
fn greeting() -> SkillSnapshot {
    let text = "---\nname: greet\ndescription: Use when greeting someone.\nargs:\n  - name: who\n    description: Whom to greet\n    required: true\n---\n\n# Greet\n\nSay hello to {Who}.\n";
    SkillSnapshot::new(text.to_owned(), Vec::new()).expect("a snapshot")
}

/// A skill renders with the arguments given, for a reader too; arguments that do not fit (a
/// required one missing, a value over the render limits) are refused with what is wrong, and
/// the limits are the application's options.
#[tokio::test]
async fn skills_render_with_their_arguments_within_the_limits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = AppOptions {
        render_limits: skillpath_core::golden_path::render::RenderLimits {
            max_value_bytes: 16,
            ..Default::default()
        },
        ..AppOptions::default()
    };
    let (app, _) = app(&dir, options).await;
    create_snapshot(&app, greeting()).await;
    let skill = app
        .catalog()
        .skill("greet")
        .cloned()
        .expect("in the catalog");
    let reader = permit(&app, &key("r", Role::Reader), Operation::LoadSkill);
    let arguments = |value: &str| {
        let mut arguments = serde_json::Map::new();
        arguments.insert("who".to_owned(), value.into());
        arguments
    };
    let rendered = app
        .render(&reader, &skill, &arguments("Ada"))
        .await
        .expect("rendered");
    assert!(rendered.contains("Say hello to Ada."), "{rendered}");
    let missing = app
        .render(&reader, &skill, &serde_json::Map::new())
        .await
        .expect_err("a required argument is missing");
    assert!(matches!(missing, AppError::Render(_)), "{missing:?}");
    assert!(missing.to_string().contains("who"), "{missing}");
    let long = app
        .render(&reader, &skill, &arguments(&"x".repeat(17)))
        .await
        .expect_err("over the limit");
    assert!(long.to_string().contains("16"), "{long}");
    // A permit for another operation is decided again: a reader's listing permit renders.
    let listing = permit(&app, &key("r", Role::Reader), Operation::ListSkills);
    assert!(app.render(&listing, &skill, &arguments("Bo")).await.is_ok());
}

/// An update with some fields merges them into the revision the caller read and keeps the
/// others; one made on a revision that is no longer current is refused as stale and writes
/// nothing; on a reviewing server an author's second update merges into their own draft.
#[tokio::test]
async fn updates_merge_the_fields_given_into_the_revision_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = AppOptions {
        review: true,
        ..AppOptions::default()
    };
    let (app, _) = app(&dir, options).await;
    create_snapshot(&app, greeting()).await;
    let fields = |description: &str| {
        let mut fields = serde_json::Map::new();
        fields.insert("description".to_owned(), description.into());
        fields
    };
    let maintainer = permit(&app, &key("m", Role::Maintainer), Operation::UpdateSkill);
    let updated = app
        .update_fields(&maintainer, "greet", 1, fields("Use when greeting anyone."))
        .await
        .expect("updated");
    let Written::Stored(stored) = updated.written else {
        panic!("a maintainer's update is stored");
    };
    assert_eq!(stored.revision, 2);
    assert!(
        stored
            .snapshot
            .skill_md
            .contains("Use when greeting anyone.")
    );
    assert!(
        stored.snapshot.skill_md.contains("{Who}"),
        "the body is kept"
    );
    let stale = app
        .update_fields(&maintainer, "greet", 1, fields("Stale."))
        .await
        .expect_err("stale");
    assert!(
        matches!(
            stale,
            AppError::Store(StoreError::StaleRevision { actual: 2, .. })
        ),
        "{stale:?}"
    );
    assert_eq!(
        app.history(&maintainer, "greet")
            .await
            .expect("history")
            .len(),
        2
    );

    let author = permit(&app, &key("ann", Role::Author), Operation::UpdateSkill);
    let first = app
        .update_fields(&author, "greet", 2, fields("Use when greeting, drafted."))
        .await
        .expect("drafted");
    assert!(matches!(first.written, Written::Drafted(_)));
    // The second update changes another field of the draft, keeping the first's change.
    let mut body = serde_json::Map::new();
    body.insert("summary".to_owned(), "Greets whoever is named.".into());
    app.update_fields(&author, "greet", 2, body)
        .await
        .expect("drafted again");
    let read = permit(&app, &key("ann", Role::Author), Operation::GetSkill);
    let draft = app.draft(&read, "greet", None).await.expect("the draft");
    assert!(
        draft
            .snapshot
            .skill_md
            .contains("Use when greeting, drafted."),
        "{}",
        draft.snapshot.skill_md
    );
    assert!(
        draft.snapshot.skill_md.contains("Greets whoever is named."),
        "{}",
        draft.snapshot.skill_md
    );
}

/// An import of folders is a publisher's to make (what it writes is served at once, with no
/// draft), records the caller and the message (or says how many skills it imported), and names
/// the pairs of skills it made compete for the same requests; a read-only server refuses it.
#[tokio::test]
async fn imports_are_a_publishers_and_name_the_pairs_they_made_compete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (library, _) = app(&dir, AppOptions::default()).await;
    let refused = library
        .may(&key("ann", Role::Author), Operation::ImportSkills)
        .expect_err("an author may not import");
    assert!(matches!(refused, AppError::Forbidden { .. }), "{refused:?}");
    let item = |name: &str, description: &str| -> skillpath_model::FolderImport {
        skillpath_model::ImportItem {
            snapshot: skill(name, description),
            provenance: Provenance::Imported {
                path: format!("/skills/{name}"),
                root: "/skills".to_owned(),
                scope: "folder".to_owned(),
            },
        }
        .into()
    };
    let maintainer = permit(
        &library,
        &key("m", Role::Maintainer),
        Operation::ImportSkills,
    );
    assert!(
        library
            .import_stamps(&maintainer, &skillpath_app::Namespace::global())
            .await
            .expect("stamps")
            .is_empty()
    );
    let same = "Use when deploying a web service to Kubernetes with Helm charts and rollbacks.";
    let imported = library
        .import(
            &maintainer,
            vec![
                item("deploy-helm", same),
                item("helm-deploy", same),
                item("notes", "Use when taking meeting notes."),
            ],
            skillpath_app::Placement::global(),
            None,
        )
        .await
        .expect("imported");
    assert_eq!(imported.report.created.len(), 3, "{:?}", imported.report);
    assert_eq!(imported.overlaps_total, 1, "{:?}", imported.overlaps);
    let (named, overlap) = &imported.overlaps[0];
    assert_eq!(
        named, "helm-deploy",
        "the second by name, when the import wrote both"
    );
    assert_eq!(
        (overlap.a.as_str(), overlap.b.as_str()),
        ("deploy-helm", "helm-deploy")
    );
    let read = permit(
        &library,
        &key("m", Role::Maintainer),
        Operation::SkillHistory,
    );
    let history = library.history(&read, "notes").await.expect("history");
    assert_eq!(history[0].author, "m");
    assert_eq!(history[0].message, "import of 3 skills");

    let read_only = tempfile::tempdir().expect("tempdir");
    let options = AppOptions {
        read_only: true,
        ..AppOptions::default()
    };
    let (app, _) = app(&read_only, options).await;
    let refused = app
        .may(&key("m", Role::Maintainer), Operation::ImportSkills)
        .expect_err("read-only");
    assert!(matches!(
        refused,
        AppError::ReadOnly(Operation::ImportSkills)
    ));
}
