//! The backend-independent tests: what every [`Store`] must do.
//!
//! Each test is a plain `async fn` taking a fresh, empty store; [`store_suite!`] makes a
//! `#[tokio::test]` of each for a backend. A test added here must be listed in the macro too
//! (an unlisted one is dead code, which clippy refuses).

use std::sync::Arc;

use skillpath_model::sha256_hex;
use skillpath_model::{
    FolderContent, FolderImport, FolderStamp, ImportItem, Kind, Provenance, RecordedStamp,
    SkillFile, SkillSnapshot,
};
use skillpath_store::keys::{self, AuthError, Grant, KeyInfo, Role};
use skillpath_store::{ImportReport, ListFilter, SkillMetadata, Store, StoreError, StoredSkill};

use crate::support::{
    by, fails, history_of, imported, is_rfc3339_utc, is_sha256, list_all, live_names, md, rev,
    search_names, skill, snapshot,
};

/// Instantiates every test of the suite for one backend, as tests of the module the macro is
/// called in. `$open` is an `async fn() -> Backend` giving a fresh, empty store.
macro_rules! store_suite {
    ($open:path) => {
        $crate::suite::store_suite!(@borrowed $open;
            create_then_get_current_and_by_revision_then_list,
            create_of_an_existing_name_is_refused_even_when_deleted,
            content_without_a_readable_name_is_refused,
            names_that_cannot_be_folders_are_refused_by_every_write,
            hand_built_snapshots_with_unsafe_paths_are_refused_by_the_store,
            hand_built_snapshots_with_unsorted_files_keep_a_consistent_hash,
            update_with_the_expected_revision_makes_a_new_revision,
            update_with_a_stale_revision_is_refused_and_changes_nothing,
            every_write_with_a_stale_revision_is_refused,
            update_of_a_deleted_skill_is_an_invalid_state,
            update_that_renames_the_skill_is_refused,
            operations_on_a_missing_skill_or_revision_are_not_found,
            delete_hides_the_skill_but_keeps_it_readable,
            restore_brings_back_content_and_search,
            rollback_makes_a_new_revision_equal_to_the_old_one,
            rollback_of_a_deleted_skill_is_an_invalid_state,
            history_lists_every_revision_with_who_and_why,
            diff_shows_skill_md_and_file_changes_between_revisions,
            list_is_in_name_order,
            list_paginates_with_cursors_over_every_skill_exactly_once,
            list_filters_by_name_prefix,
            list_includes_deleted_skills_only_when_asked,
            an_invalid_cursor_is_refused,
            search_ranks_name_over_description_over_body,
            search_ranks_a_name_match_over_many_body_mentions,
            search_snippets_mark_the_match,
            search_follows_updates_deletes_and_rollbacks,
            hostile_search_queries_never_fail,
            import_creates_new_skills_and_skips_unchanged_ones,
            import_gives_changed_content_exactly_one_revision,
            import_is_one_transaction,
            import_restores_a_deleted_skill,
            import_keeps_the_first_of_two_items_with_one_name,
            import_round_trips_binary_files,
            folder_stamps_follow_the_revision_they_were_read_for,
            files_keep_their_bytes_and_sha256,
            identical_files_in_several_skills_stay_independent,
            keys_are_listed_without_the_key_and_revoked_by_name,
            authentication_accepts_only_active_matching_keys,
            current_skills_are_every_live_skill_as_get_reads_it,
            current_metadata_is_current_skills_without_the_bytes,
        );
        $crate::suite::store_suite!(@shared $open;
            concurrent_updates_with_one_expected_revision_let_exactly_one_win,
            concurrent_creates_of_one_name_let_exactly_one_win,
            concurrent_key_creates_of_one_name_let_exactly_one_win,
            concurrent_imports_of_one_set_in_opposite_orders_both_succeed,
            concurrent_imports_sharing_files_in_opposite_orders_both_succeed,
        );
        $crate::suite::store_suite!(@backend $open;
            corpus_round_trips_through_import_and_export,
            corpus_search_finds_the_expected_skill,
        );
        $crate::suite::store_suite!(@audit $open;
            writes_keep_their_findings_with_the_revision,
            a_blocking_policy_refuses_writes_and_changes_nothing,
            an_import_leaves_out_what_the_policy_refuses,
            names_are_audited_against_the_stores_skills,
            a_large_import_is_audited_beside_its_transaction,
        );
        $crate::suite::store_suite!(@packages $open;
            packages_are_kept_with_revisions_like_skills,
            a_skill_belongs_to_at_most_one_package,
            an_item_keeps_its_kind,
            a_package_folder_imports_and_exports_byte_for_byte,
            a_member_is_created_with_its_package_update_or_not_at_all,
        );
        $crate::suite::store_suite!(@packages_shared $open;
            concurrent_packages_claiming_one_skill_let_exactly_one_win,
        );
        $crate::suite::store_suite!(@drafts $open;
            a_draft_is_kept_apart_until_published,
            a_stale_draft_is_refused_naming_both_revisions,
            a_rejected_draft_keeps_its_message_until_saved_again,
            a_draft_joining_a_package_is_listed_by_it_when_published,
        );
        $crate::suite::store_suite!(@forks $open;
            a_fork_copies_a_skill_and_records_its_origin,
            a_package_is_forked_with_its_members,
            forks_cannot_form_a_cycle,
        );
        $crate::suite::store_suite!(@usage $open;
            usage_adds_up_by_skill_revision_day_and_key,
        );
        $crate::suite::store_suite!(@usage_shared $open;
            concurrent_usage_batches_lose_no_use,
        );
        $crate::suite::store_suite!(@drafts_shared $open;
            concurrent_publications_of_one_draft_write_one_revision,
        );
        $crate::suite::store_suite!(@directory $open;
            changes_of_the_directory_are_kept_and_logged,
            items_of_one_name_live_in_each_namespace,
            stars_are_kept_per_person_and_item,
            accounts_link_once_and_administrators_change,
        );
        $crate::suite::store_suite!(@directory_backend $open;
            concurrent_changes_from_two_stores_keep_one_chain,
        );
        $crate::suite::store_suite!(@releases $open;
            releases_follow_the_version_rules,
        );
        $crate::suite::store_suite!(@releases_backend $open;
            one_version_released_from_two_stores_at_once_is_one_release,
        );
        $crate::suite::store_suite!(@uploads $open;
            uploads_wait_within_their_bounds_until_published,
        );
        $crate::suite::store_suite!(@uploads_backend $open;
            concurrent_uploads_from_two_stores_stay_within_the_bound,
        );
        $crate::suite::store_suite!(@scopes $open;
            each_project_sees_its_own_skills_and_the_shared_ones,
            a_user_skill_never_replaces_one_of_the_stores_own,
            search_looks_past_the_skills_the_view_hides,
        );
    };
    (@packages $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::packages::$test(backend.store()).await;
            }
        )*
    };
    (@packages_shared $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::packages::$test(backend.shared()).await;
            }
        )*
    };
    (@drafts $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::drafts::$test(backend.store()).await;
            }
        )*
    };
    (@forks $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::forks::$test(backend.store()).await;
            }
        )*
    };
    (@usage $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::usage::$test(backend.store()).await;
            }
        )*
    };
    (@usage_shared $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::usage::$test(backend.shared()).await;
            }
        )*
    };
    (@drafts_shared $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::drafts::$test(backend.shared()).await;
            }
        )*
    };
    (@directory $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::directory::$test(backend.store()).await;
            }
        )*
    };
    (@directory_backend $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::directory::$test(&backend).await;
            }
        )*
    };
    (@releases $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::releases::$test(backend.store()).await;
            }
        )*
    };
    (@releases_backend $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::releases::$test(&backend).await;
            }
        )*
    };
    (@uploads $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::uploads::$test(backend.store()).await;
            }
        )*
    };
    (@uploads_backend $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::uploads::$test(&backend).await;
            }
        )*
    };
    (@scopes $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::scopes::$test(&backend).await;
            }
        )*
    };
    (@audit $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::audit::$test(backend.store()).await;
            }
        )*
    };
    (@borrowed $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::suite::$test(backend.store()).await;
            }
        )*
    };
    (@backend $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::corpus::$test(&backend).await;
            }
        )*
    };
    (@shared $open:path; $($test:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $test() {
                let backend: $crate::support::Backend = $open().await;
                $crate::suite::$test(backend.shared()).await;
            }
        )*
    };
}
pub(crate) use store_suite;

/// A skill with a `tool_name`, a text file and a binary file.
fn pdf_forms() -> SkillSnapshot {
    snapshot(
        "---\nname: pdf-forms\ndescription: Fill PDF forms\ntool_name: fill_pdf\n---\n\n# PDF forms\n\nRead the fields first.\n"
            .to_owned(),
        &[("references/fields.md", b"# Fields\n\nEvery field has a name.\n"), ("assets/icon.png", &[0x89, b'P', b'N', b'G', 0, 0xff, 0xfe])],
    )
}

// ---------------------------------------------------------------------------------------------
// create, get, list

pub(crate) async fn create_then_get_current_and_by_revision_then_list(store: &dyn Store) {
    let content = pdf_forms();
    let created = store
        .create(
            content.clone(),
            Provenance::Api,
            by("alice", "first version"),
        )
        .await
        .expect("create");
    assert_eq!(created.name, "pdf-forms");
    assert_eq!(created.description, "Fill PDF forms");
    assert_eq!(created.tool_name.as_deref(), Some("fill_pdf"));
    assert_eq!(created.revision, 1);
    assert!(!created.deleted);
    assert_eq!(created.content_hash, content.content_hash());
    assert!(is_sha256(&created.content_hash), "{}", created.content_hash);
    assert_eq!(created.provenance, Provenance::Api);
    assert!(
        is_rfc3339_utc(&created.updated_at),
        "{}",
        created.updated_at
    );
    assert_eq!(created.snapshot, content);

    assert_eq!(
        store.get("pdf-forms", None).await.expect("get current"),
        created
    );
    assert_eq!(
        store
            .get("pdf-forms", Some(1))
            .await
            .expect("get revision 1"),
        created
    );

    // A second skill, imported, with a quoted name (as some real skills have).
    let provenance = imported("/skills/quoted");
    let quoted = snapshot(
        "---\nname: \"quoted-name\"\ndescription: 'Has quotes'\n---\nBody\n".to_owned(),
        &[],
    );
    let second = store
        .create(quoted.clone(), provenance.clone(), by("bob", "import it"))
        .await
        .expect("create quoted");
    assert_eq!(
        (
            second.name.as_str(),
            second.description.as_str(),
            second.tool_name.as_deref()
        ),
        ("quoted-name", "Has quotes", None)
    );
    assert_eq!(
        store
            .get("quoted-name", None)
            .await
            .expect("get")
            .provenance,
        provenance
    );

    let listed = list_all(store, ListFilter::default(), 10).await;
    assert_eq!(listed.len(), 2, "{listed:?}");
    let first = &listed[0];
    assert_eq!(first.name, "pdf-forms");
    assert_eq!(first.description, "Fill PDF forms");
    assert_eq!(first.tool_name.as_deref(), Some("fill_pdf"));
    assert_eq!(first.revision, 1);
    assert!(!first.deleted);
    assert_eq!(first.updated_at, created.updated_at);
    assert_eq!(first.provenance, Provenance::Api);
    assert_eq!(listed[1].name, "quoted-name");
    assert_eq!(listed[1].provenance, provenance);
}

pub(crate) async fn create_of_an_existing_name_is_refused_even_when_deleted(store: &dyn Store) {
    let original = skill("taken", "The first one", "First body.");
    store
        .create(original.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");

    // Other content, same name.
    let error = fails(store.create(
        skill("taken", "The second one", "Other body."),
        Provenance::Api,
        by("bob", "again"),
    ))
    .await;
    assert!(
        matches!(&error, StoreError::AlreadyExists { name, revision: 1, deleted: false } if name == "taken"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "a skill named `taken` exists already (revision 1)"
    );
    assert_eq!(
        error.hint().as_deref(),
        Some("update it instead, giving the revision you read")
    );
    let current = store.get("taken", None).await.expect("get");
    assert_eq!((current.revision, &current.snapshot), (1, &original));

    store
        .delete("taken", 1, by("alice", "delete"))
        .await
        .expect("delete");
    let error = fails(store.create(
        skill("taken", "The third one", "Body."),
        Provenance::Api,
        by("bob", "again"),
    ))
    .await;
    assert!(
        matches!(&error, StoreError::AlreadyExists { name, revision: 2, deleted: true } if name == "taken"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "a skill named `taken` exists already (revision 2, deleted)"
    );
    assert_eq!(
        error.hint().as_deref(),
        Some("restore it with `skillpath restore taken`")
    );
    assert_eq!(
        history_of(store, "taken").await.len(),
        2,
        "a refused create adds no revision"
    );
}

/// A name that cannot be a folder's (`sync` and `export` write a skill into a folder of its
/// name) is refused by every write of new content: a creation, an update that would bring one,
/// an import, a draft; nothing is stored.
pub(crate) async fn names_that_cannot_be_folders_are_refused_by_every_write(store: &dyn Store) {
    store
        .create(
            skill("fine", "d", "b"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("a good name is stored");
    for name in [
        "'..'",
        "'.'",
        "'a/b'",
        "'/etc/x'",
        "'.claude'",
        "'x\\y'",
        "CON",
        "\"a\\tb\"",
    ] {
        let content = snapshot(
            format!("---\nname: {name}\ndescription: d\n---\nBody\n"),
            &[],
        );
        let error = fails(store.create(content.clone(), Provenance::Api, by("alice", name))).await;
        assert!(
            matches!(&error, StoreError::InvalidSkill(message) if message.starts_with("cannot store the skill: the name `") && message.contains("cannot be a folder's name: ")),
            "{name}: {error:?}"
        );
        let error = fails(store.update("fine", 1, content.clone(), by("alice", name))).await;
        assert!(
            matches!(error, StoreError::InvalidSkill(_)),
            "{name}: {error:?}"
        );
        let error = fails(store.import(
            vec![ImportItem {
                snapshot: content,
                provenance: imported("/x"),
            }],
            by("import", name),
        ))
        .await;
        assert!(
            matches!(error, StoreError::InvalidSkill(_)),
            "{name} (import): {error:?}"
        );
    }
    let names: Vec<String> = list_all(
        store,
        ListFilter {
            include_deleted: true,
            ..ListFilter::default()
        },
        10,
    )
    .await
    .into_iter()
    .map(|item| item.name)
    .collect();
    assert_eq!(names, ["fine"]);
}

pub(crate) async fn content_without_a_readable_name_is_refused(store: &dyn Store) {
    let nameless = [
        ("no frontmatter", "# Just a body\n".to_owned()),
        (
            "no name key",
            "---\ndescription: no name\n---\nBody\n".to_owned(),
        ),
        (
            "empty name",
            "---\nname: \"\"\ndescription: d\n---\nBody\n".to_owned(),
        ),
        (
            "blank name",
            "---\nname:    \ndescription: d\n---\nBody\n".to_owned(),
        ),
        (
            "name is a list",
            "---\nname: [a, b]\ndescription: d\n---\nBody\n".to_owned(),
        ),
        (
            "name is a mapping",
            "---\nname:\n  first: a\ndescription: d\n---\nBody\n".to_owned(),
        ),
        (
            "unterminated frontmatter",
            "---\nname: x\ndescription: d\n".to_owned(),
        ),
        ("empty file", String::new()),
    ];
    for (case, text) in nameless {
        let content = snapshot(text, &[]);
        let error = fails(store.create(content.clone(), Provenance::Api, by("alice", case))).await;
        assert!(
            matches!(error, StoreError::InvalidSkill(_)),
            "{case}: {error:?}"
        );
        assert_eq!(
            error.to_string(),
            "the `SKILL.md` has no readable `name`, so it cannot be stored",
            "{case}"
        );
        let error = fails(store.import(
            vec![ImportItem {
                snapshot: content,
                provenance: imported("/x"),
            }],
            by("import", case),
        ))
        .await;
        assert!(
            matches!(error, StoreError::InvalidSkill(_)),
            "{case} (import): {error:?}"
        );
    }
    assert_eq!(
        list_all(
            store,
            ListFilter {
                include_deleted: true,
                ..ListFilter::default()
            },
            10
        )
        .await,
        []
    );

    store
        .create(
            skill("named", "d", "b"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    let error = fails(store.update(
        "named",
        1,
        snapshot("# no frontmatter\n".to_owned(), &[]),
        by("alice", "update"),
    ))
    .await;
    assert!(matches!(error, StoreError::InvalidSkill(_)), "{error:?}");
    assert_eq!(store.get("named", None).await.expect("get").revision, 1);
}

pub(crate) async fn hand_built_snapshots_with_unsafe_paths_are_refused_by_the_store(
    store: &dyn Store,
) {
    // `SkillSnapshot`'s fields are public, so a snapshot can skip `SkillSnapshot::new`. The store
    // documents `InvalidSkill` for "unsafe file paths"; it must not keep a path that would leave
    // the skill folder when exported.
    // A snapshot's fields are public, so the store checks paths on every write itself rather
    // than trusting `SkillSnapshot::new` to have run.
    for (i, path) in ["../escape.txt", "/abs.txt", "a//b", "SKILL.md", "a/../../b"]
        .into_iter()
        .enumerate()
    {
        let name = format!("escape-{i}");
        let escaping = SkillSnapshot {
            kind: Kind::Skill,
            skill_md: md(&name, "d", "b"),
            files: vec![SkillFile {
                path: path.to_owned(),
                bytes: b"x".to_vec(),
            }],
        };
        let result = store
            .create(escaping.clone(), Provenance::Api, by("mallory", "escape"))
            .await;
        assert!(
            matches!(result, Err(StoreError::InvalidSkill(_))),
            "create with {path:?}: {result:?}"
        );
        assert!(
            matches!(
                store.get(&name, None).await,
                Err(StoreError::NotFound { .. })
            ),
            "{path:?} was stored"
        );
        let result = store
            .import(
                vec![ImportItem {
                    snapshot: escaping,
                    provenance: imported("/x"),
                }],
                by("mallory", "escape"),
            )
            .await;
        assert!(
            matches!(result, Err(StoreError::InvalidSkill(_))),
            "import with {path:?}: {result:?}"
        );
    }
}

pub(crate) async fn hand_built_snapshots_with_unsorted_files_keep_a_consistent_hash(
    store: &dyn Store,
) {
    // A hand-built snapshot may list its files out of path order. What the store hands back
    // (files sorted by path) must have the content hash the store reports, or a later import of
    // the same folder (read sorted) is not recognised as unchanged.
    let file = |path: &str, bytes: &[u8]| SkillFile {
        path: path.to_owned(),
        bytes: bytes.to_vec(),
    };
    let unsorted = SkillSnapshot {
        kind: Kind::Skill,
        skill_md: md("unsorted", "d", "b"),
        files: vec![file("b.txt", b"b"), file("a.txt", b"a")],
    };
    let sorted = snapshot(
        md("unsorted", "d", "b"),
        &[("a.txt", b"a"), ("b.txt", b"b")],
    );
    store
        .create(unsorted, Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    let stored = store.get("unsorted", None).await.expect("get");
    assert_eq!(stored.snapshot, sorted, "files come back sorted by path");
    // Files given out of order are stored sorted, and the content hash is the hash of what is
    // stored, so importing the same folder afterwards is `unchanged`.
    assert_eq!(
        stored.content_hash,
        stored.snapshot.content_hash(),
        "the stored hash is the hash of the stored content"
    );
    let report = store
        .import(
            vec![ImportItem {
                snapshot: sorted,
                provenance: imported("/s/unsorted"),
            }],
            by("import", "same"),
        )
        .await
        .expect("import");
    assert_eq!(report.unchanged, ["unsorted"], "{report:?}");
}

// ---------------------------------------------------------------------------------------------
// update

pub(crate) async fn update_with_the_expected_revision_makes_a_new_revision(store: &dyn Store) {
    let first = pdf_forms();
    store
        .create(first.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    let second = snapshot(
        "---\nname: pdf-forms\ndescription: Fill and flatten PDF forms\n---\n\n# PDF forms\n\nFlatten at the end.\n".to_owned(),
        &[("references/fields.md", b"# Fields\n\nEvery field has a name and a type.\n")],
    );
    let updated = store
        .update("pdf-forms", 1, second.clone(), by("bob", "add flattening"))
        .await
        .expect("update");
    assert_eq!(updated.name, "pdf-forms");
    assert_eq!(updated.revision, 2);
    assert_eq!(updated.description, "Fill and flatten PDF forms");
    assert_eq!(
        updated.tool_name, None,
        "tool_name was removed from the frontmatter"
    );
    assert_eq!(updated.content_hash, second.content_hash());
    assert_ne!(updated.content_hash, first.content_hash());
    assert_eq!(updated.snapshot, second);
    assert_eq!(
        updated.provenance,
        Provenance::Api,
        "an update keeps the provenance"
    );

    assert_eq!(
        store.get("pdf-forms", None).await.expect("current"),
        updated
    );
    let old = store.get("pdf-forms", Some(1)).await.expect("revision 1");
    assert_eq!(
        (old.revision, &old.snapshot, old.description.as_str()),
        (1, &first, "Fill PDF forms")
    );
    assert_eq!(old.tool_name.as_deref(), Some("fill_pdf"));
    assert_eq!(
        history_of(store, "pdf-forms").await,
        [
            rev(1, "create", "alice", "create"),
            rev(2, "update", "bob", "add flattening")
        ]
    );
    let listed = list_all(store, ListFilter::default(), 10).await;
    assert_eq!(
        (listed[0].revision, listed[0].description.as_str()),
        (2, "Fill and flatten PDF forms")
    );

    // An update with unchanged content is still a revision (only import skips unchanged content).
    let same = store
        .update("pdf-forms", 2, second.clone(), by("bob", "touch"))
        .await
        .expect("same content");
    assert_eq!(
        (same.revision, same.content_hash),
        (3, second.content_hash())
    );
}

pub(crate) async fn update_with_a_stale_revision_is_refused_and_changes_nothing(store: &dyn Store) {
    store
        .create(
            skill("shared", "v1", "one"),
            Provenance::Api,
            by("alice", "v1"),
        )
        .await
        .expect("create");
    let current = store
        .update("shared", 1, skill("shared", "v2", "two"), by("alice", "v2"))
        .await
        .expect("update");

    for expected in [1, 3, 0] {
        let error = fails(store.update(
            "shared",
            expected,
            skill("shared", "lost", "lost"),
            by("bob", "stale"),
        ))
        .await;
        assert!(
            matches!(&error, StoreError::StaleRevision { name, expected: e, actual: 2 } if name == "shared" && *e == expected),
            "{error:?}"
        );
        let message = error.to_string();
        assert_eq!(
            message,
            format!(
                "skill `shared` is at revision 2, not {expected}: it was changed since you read it"
            )
        );
        assert_eq!(
            error.hint().as_deref(),
            Some(
                "read revision 2 of `shared` (`skillpath show shared`), apply your change to it, and write again with that revision"
            )
        );
    }
    assert_eq!(
        store.get("shared", None).await.expect("get"),
        current,
        "nothing changed"
    );
    assert_eq!(history_of(store, "shared").await.len(), 2);
    assert_eq!(search_names(store, "lost").await, Vec::<String>::new());
}

pub(crate) async fn every_write_with_a_stale_revision_is_refused(store: &dyn Store) {
    store
        .create(
            skill("busy", "v1", "one"),
            Provenance::Api,
            by("alice", "v1"),
        )
        .await
        .expect("create");
    store
        .update("busy", 1, skill("busy", "v2", "two"), by("alice", "v2"))
        .await
        .expect("update");
    let stale = |error: &StoreError| {
        matches!(
            error,
            StoreError::StaleRevision {
                expected: 1,
                actual: 2,
                ..
            }
        )
    };

    let error = fails(store.delete("busy", 1, by("bob", "delete"))).await;
    assert!(stale(&error), "delete: {error:?}");
    let error = fails(store.rollback("busy", 1, 1, by("bob", "rollback"))).await;
    assert!(stale(&error), "rollback: {error:?}");
    store
        .delete("busy", 2, by("alice", "delete"))
        .await
        .expect("delete");
    let error = fails(store.restore("busy", 2, by("bob", "restore"))).await;
    assert!(
        matches!(
            error,
            StoreError::StaleRevision {
                expected: 2,
                actual: 3,
                ..
            }
        ),
        "restore: {error:?}"
    );
    assert_eq!(
        history_of(store, "busy").await,
        [
            rev(1, "create", "alice", "v1"),
            rev(2, "update", "alice", "v2"),
            rev(3, "delete", "alice", "delete")
        ]
    );
}

pub(crate) async fn update_of_a_deleted_skill_is_an_invalid_state(store: &dyn Store) {
    store
        .create(
            skill("gone", "d", "b"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    store
        .delete("gone", 1, by("alice", "delete"))
        .await
        .expect("delete");
    let error =
        fails(store.update("gone", 2, skill("gone", "new", "new"), by("bob", "update"))).await;
    assert!(matches!(error, StoreError::InvalidState(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "skill `gone` is deleted; restore it before changing it"
    );
    let current = store.get("gone", None).await.expect("get");
    assert_eq!(
        (
            current.revision,
            current.deleted,
            current.description.as_str()
        ),
        (2, true, "d")
    );

    let error = fails(store.delete("gone", 2, by("bob", "delete again"))).await;
    assert!(matches!(error, StoreError::InvalidState(_)), "{error:?}");
    assert_eq!(error.to_string(), "skill `gone` is already deleted");

    store
        .create(
            skill("alive", "d", "b"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    let error = fails(store.restore("alive", 1, by("bob", "restore"))).await;
    assert!(matches!(error, StoreError::InvalidState(_)), "{error:?}");
    assert_eq!(error.to_string(), "skill `alive` is not deleted");
    assert_eq!(history_of(store, "gone").await.len(), 2);
    assert_eq!(history_of(store, "alive").await.len(), 1);
}

pub(crate) async fn update_that_renames_the_skill_is_refused(store: &dyn Store) {
    let original = skill("old-name", "d", "b");
    store
        .create(original.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    let error = fails(store.update(
        "old-name",
        1,
        skill("new-name", "d", "b"),
        by("bob", "rename"),
    ))
    .await;
    assert!(matches!(error, StoreError::InvalidSkill(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the new content is named `new-name`, not `old-name`; a skill keeps its name"
    );
    assert_eq!(
        store.get("old-name", None).await.expect("get").snapshot,
        original
    );
    assert!(matches!(
        store.get("new-name", None).await,
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(live_names(store).await, ["old-name"]);
}

pub(crate) async fn operations_on_a_missing_skill_or_revision_are_not_found(store: &dyn Store) {
    let missing = |error: &StoreError| matches!(error, StoreError::NotFound { name, revision: None } if name == "ghost");
    let checks: Vec<(&str, StoreError)> = vec![
        ("get", fails(store.get("ghost", None)).await),
        ("get revision", fails(store.get("ghost", Some(1))).await),
        (
            "update",
            fails(store.update("ghost", 1, skill("ghost", "d", "b"), by("a", "m"))).await,
        ),
        (
            "delete",
            fails(store.delete("ghost", 1, by("a", "m"))).await,
        ),
        (
            "restore",
            fails(store.restore("ghost", 1, by("a", "m"))).await,
        ),
        (
            "rollback",
            fails(store.rollback("ghost", 1, 1, by("a", "m"))).await,
        ),
        ("history", fails(store.history("ghost")).await),
        ("diff", fails(store.diff("ghost", 1, 1)).await),
    ];
    for (operation, error) in &checks {
        // `get` and `diff` name a revision, so their error may carry it.
        if matches!(*operation, "get revision" | "diff") {
            assert!(
                matches!(error, StoreError::NotFound { name, revision: None | Some(1) } if name == "ghost"),
                "{operation}: {error:?}"
            );
            assert!(
                error.to_string().starts_with("no skill named `ghost`"),
                "{operation}: {error}"
            );
            continue;
        }
        assert!(missing(error), "{operation}: {error:?}");
        assert_eq!(error.to_string(), "no skill named `ghost`", "{operation}");
        assert_eq!(
            error.hint().as_deref(),
            Some("list the skills with `skillpath list`")
        );
    }

    store
        .create(
            skill("real", "d", "b"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    for revision in [0, 2, 99, u64::from(u32::MAX) + 1, u64::MAX] {
        let error = fails(store.get("real", Some(revision))).await;
        assert!(
            matches!(&error, StoreError::NotFound { name, revision: Some(r) } if name == "real" && *r == revision),
            "{revision}: {error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!("skill `real` has no revision {revision}")
        );
    }
    let error = fails(store.rollback("real", 7, 1, by("a", "m"))).await;
    assert!(
        matches!(
            error,
            StoreError::NotFound {
                revision: Some(7),
                ..
            }
        ),
        "{error:?}"
    );
    let error = fails(store.diff("real", 1, 5)).await;
    assert!(
        matches!(
            error,
            StoreError::NotFound {
                revision: Some(5),
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(history_of(store, "real").await.len(), 1);
    // Names are exact: no prefix, case or whitespace matching.
    for near in ["rea", "Real", "real ", " real"] {
        assert!(
            matches!(
                store.get(near, None).await,
                Err(StoreError::NotFound { .. })
            ),
            "{near:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// delete, restore, rollback, history, diff

pub(crate) async fn delete_hides_the_skill_but_keeps_it_readable(store: &dyn Store) {
    let content = snapshot(
        md("obsolete", "An obsolete helper", "Mentions quokka."),
        &[("notes.txt", b"kept")],
    );
    store
        .create(
            content.clone(),
            imported("/skills/obsolete"),
            by("alice", "create"),
        )
        .await
        .expect("create");
    store
        .create(
            skill("other", "Another", "Also mentions quokka."),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    assert_eq!(search_names(store, "quokka").await.len(), 2);

    let deleted = store
        .delete("obsolete", 1, by("bob", "not used any more"))
        .await
        .expect("delete");
    assert_eq!(
        (deleted.name.as_str(), deleted.revision, deleted.deleted),
        ("obsolete", 2, true)
    );
    assert_eq!(deleted.snapshot, content, "a delete keeps the content");
    assert_eq!(deleted.content_hash, content.content_hash());
    assert_eq!(deleted.provenance, imported("/skills/obsolete"));

    assert_eq!(live_names(store).await, ["other"]);
    assert_eq!(search_names(store, "quokka").await, ["other"]);
    assert_eq!(search_names(store, "obsolete").await, Vec::<String>::new());
    let all = list_all(
        store,
        ListFilter {
            include_deleted: true,
            ..ListFilter::default()
        },
        10,
    )
    .await;
    let summary = all
        .iter()
        .find(|s| s.name == "obsolete")
        .expect("listed with include_deleted");
    assert_eq!(
        (
            summary.revision,
            summary.deleted,
            summary.description.as_str()
        ),
        (2, true, "An obsolete helper")
    );

    let current = store.get("obsolete", None).await.expect("get still works");
    assert_eq!(current, deleted);
    let before = store.get("obsolete", Some(1)).await.expect("revision 1");
    assert!(!before.deleted, "revision 1 was live");
    assert_eq!(before.snapshot, content);
    assert_eq!(
        history_of(store, "obsolete").await,
        [
            rev(1, "create", "alice", "create"),
            rev(2, "delete", "bob", "not used any more")
        ]
    );
}

pub(crate) async fn restore_brings_back_content_and_search(store: &dyn Store) {
    let content = snapshot(
        md("phoenix", "Rises again", "Body about wombats."),
        &[("data.bin", &[0, 1, 2, 0xff])],
    );
    store
        .create(content.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    store
        .delete("phoenix", 1, by("alice", "delete"))
        .await
        .expect("delete");
    assert_eq!(search_names(store, "wombats").await, Vec::<String>::new());

    let restored = store
        .restore("phoenix", 2, by("carol", "needed after all"))
        .await
        .expect("restore");
    assert_eq!((restored.revision, restored.deleted), (3, false));
    assert_eq!(restored.snapshot, content);
    assert_eq!(restored.content_hash, content.content_hash());
    assert_eq!(restored.description, "Rises again");
    assert_eq!(store.get("phoenix", None).await.expect("get"), restored);
    assert_eq!(search_names(store, "wombats").await, ["phoenix"]);
    assert_eq!(search_names(store, "phoenix").await, ["phoenix"]);
    assert_eq!(live_names(store).await, ["phoenix"]);
    assert_eq!(
        history_of(store, "phoenix").await,
        [
            rev(1, "create", "alice", "create"),
            rev(2, "delete", "alice", "delete"),
            rev(3, "restore", "carol", "needed after all")
        ]
    );
    // And it can be changed again.
    let updated = store
        .update(
            "phoenix",
            3,
            skill("phoenix", "Rises again", "New body."),
            by("carol", "edit"),
        )
        .await
        .expect("update");
    assert_eq!(updated.revision, 4);
}

pub(crate) async fn rollback_makes_a_new_revision_equal_to_the_old_one(store: &dyn Store) {
    let v1 = snapshot(
        "---\nname: roller\ndescription: First description\ntool_name: roll\n---\nThe aardvark version.\n".to_owned(),
        &[("a.txt", b"one\n"), ("bin/blob", &[0, 0xff, 0x80])],
    );
    let v2 = snapshot(
        md("roller", "Second description", "The badger version."),
        &[("a.txt", b"two\n")],
    );
    let v3 = snapshot(
        md("roller", "Third description", "The capybara version."),
        &[("c.txt", b"three\n")],
    );
    store
        .create(v1.clone(), imported("/skills/roller"), by("alice", "v1"))
        .await
        .expect("create");
    store
        .update("roller", 1, v2, by("alice", "v2"))
        .await
        .expect("v2");
    store
        .update("roller", 2, v3.clone(), by("alice", "v3"))
        .await
        .expect("v3");

    let rolled = store
        .rollback("roller", 1, 3, by("dave", "v3 broke things"))
        .await
        .expect("rollback");
    assert_eq!((rolled.revision, rolled.deleted), (4, false));
    assert_eq!(rolled.content_hash, v1.content_hash());
    assert_eq!(
        rolled.snapshot, v1,
        "same SKILL.md and file bytes as revision 1"
    );
    assert_eq!(rolled.description, "First description");
    assert_eq!(rolled.tool_name.as_deref(), Some("roll"));
    assert_eq!(rolled.provenance, imported("/skills/roller"));
    let first = store.get("roller", Some(1)).await.expect("revision 1");
    assert_eq!(
        (first.content_hash.as_str(), &first.snapshot),
        (rolled.content_hash.as_str(), &rolled.snapshot)
    );
    assert_eq!(store.get("roller", None).await.expect("current"), rolled);
    assert_eq!(
        store
            .get("roller", Some(3))
            .await
            .expect("revision 3")
            .snapshot,
        v3,
        "history is kept"
    );

    assert_eq!(search_names(store, "aardvark").await, ["roller"]);
    assert_eq!(search_names(store, "capybara").await, Vec::<String>::new());
    let history = store.history("roller").await.expect("history");
    let last = history.last().expect("a revision");
    assert_eq!(
        (
            last.number,
            last.operation.as_str(),
            last.author.as_str(),
            last.message.as_str()
        ),
        (4, "rollback", "dave", "v3 broke things")
    );
    assert_eq!(last.content_hash, history[0].content_hash);
    assert_eq!(
        store.diff("roller", 1, 4).await.expect("diff"),
        "",
        "rolled-back content equals revision 1"
    );

    // Rolling back to the current content is allowed and still a new revision.
    let again = store
        .rollback("roller", 4, 4, by("dave", "again"))
        .await
        .expect("rollback to current");
    assert_eq!((again.revision, again.content_hash), (5, v1.content_hash()));
}

pub(crate) async fn rollback_of_a_deleted_skill_is_an_invalid_state(store: &dyn Store) {
    // A rollback writes content, like an update, and an update of a deleted skill is refused
    // ("restore it before changing it"; `InvalidState` is documented for "updating a deleted
    // one"). Bringing a deleted skill back is `restore`'s job, with its own operation in history.
    // A deleted skill must be restored before it is rolled back, as before it is updated, so
    // every undelete shows as a `restore` in its history.
    store
        .create(
            skill("undead", "v1", "one"),
            Provenance::Api,
            by("alice", "v1"),
        )
        .await
        .expect("create");
    store
        .update("undead", 1, skill("undead", "v2", "two"), by("alice", "v2"))
        .await
        .expect("update");
    store
        .delete("undead", 2, by("alice", "delete"))
        .await
        .expect("delete");
    let result = store.rollback("undead", 1, 3, by("bob", "roll back")).await;
    assert!(
        matches!(result, Err(StoreError::InvalidState(_))),
        "{result:?}"
    );
    let current = store.get("undead", None).await.expect("get");
    assert_eq!(
        (current.revision, current.deleted),
        (3, true),
        "nothing changed"
    );
    assert_eq!(live_names(store).await, Vec::<String>::new());
}

pub(crate) async fn history_lists_every_revision_with_who_and_why(store: &dyn Store) {
    store
        .create(
            skill("chronicle", "d1", "b1"),
            Provenance::Api,
            by("alice", "start"),
        )
        .await
        .expect("create");
    store
        .update(
            "chronicle",
            1,
            skill("chronicle", "d2", "b2"),
            by("bob", "second"),
        )
        .await
        .expect("update");
    store
        .delete("chronicle", 2, by("carol", "remove"))
        .await
        .expect("delete");
    store
        .restore("chronicle", 3, by("dave", "bring back"))
        .await
        .expect("restore");
    store
        .rollback("chronicle", 1, 4, by("erin", "back to the start"))
        .await
        .expect("rollback");
    store
        .update(
            "chronicle",
            5,
            skill("chronicle", "d6", "b6"),
            by("frank", "Ünïcödé message — with \"quotes\"\nand a newline"),
        )
        .await
        .expect("update");

    let history = store.history("chronicle").await.expect("history");
    let numbers: Vec<u64> = history.iter().map(|r| r.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
    assert_eq!(
        history_of(store, "chronicle").await,
        [
            rev(1, "create", "alice", "start"),
            rev(2, "update", "bob", "second"),
            rev(3, "delete", "carol", "remove"),
            rev(4, "restore", "dave", "bring back"),
            rev(5, "rollback", "erin", "back to the start"),
            rev(
                6,
                "update",
                "frank",
                "Ünïcödé message — with \"quotes\"\nand a newline"
            ),
        ]
    );
    for revision in &history {
        assert_eq!(revision.skill, "chronicle");
        assert!(
            is_rfc3339_utc(&revision.created_at),
            "{}",
            revision.created_at
        );
        let stored = store
            .get("chronicle", Some(revision.number))
            .await
            .expect("each revision readable");
        assert_eq!(
            stored.content_hash, revision.content_hash,
            "revision {}",
            revision.number
        );
        assert_eq!(
            stored.updated_at, revision.created_at,
            "revision {}",
            revision.number
        );
        assert_eq!(
            stored.deleted,
            revision.number == 3,
            "revision {}",
            revision.number
        );
    }
    assert!(
        history
            .windows(2)
            .all(|w| w[0].created_at <= w[1].created_at),
        "times never go back"
    );
    assert_eq!(
        history[4].content_hash, history[0].content_hash,
        "the rollback has revision 1's content"
    );
    assert_eq!(
        history[2].content_hash, history[1].content_hash,
        "a delete keeps the content"
    );
    assert_eq!(
        history[3].content_hash, history[1].content_hash,
        "a restore brings back that content"
    );
    // Empty author and message are stored as given.
    store
        .create(skill("quiet", "d", "b"), Provenance::Api, by("", ""))
        .await
        .expect("create");
    assert_eq!(history_of(store, "quiet").await, [rev(1, "create", "", "")]);
}

pub(crate) async fn diff_shows_skill_md_and_file_changes_between_revisions(store: &dyn Store) {
    let v1 = snapshot(
        "---\nname: differ\ndescription: d\n---\nline one\nline two\nline three\n".to_owned(),
        &[
            ("same.txt", b"same\n"),
            ("changed.md", b"alpha\nbeta\n"),
            ("removed.txt", b"bye\n"),
            ("logo.bin", &[0, 1, 0xff]),
        ],
    );
    let v2 = snapshot(
        "---\nname: differ\ndescription: d\n---\nline one\nline 2\nline three\n".to_owned(),
        &[
            ("same.txt", b"same\n"),
            ("changed.md", b"alpha\ngamma\n"),
            ("added.txt", b"hello\n"),
            ("logo.bin", &[0, 2, 0xff]),
        ],
    );
    store
        .create(v1, Provenance::Api, by("alice", "v1"))
        .await
        .expect("create");
    store
        .update("differ", 1, v2, by("alice", "v2"))
        .await
        .expect("update");

    let diff = store.diff("differ", 1, 2).await.expect("diff");
    let expected = "\
--- a/SKILL.md (revision 1)
+++ b/SKILL.md (revision 2)
@@ -3,5 +3,5 @@
 description: d
 ---
 line one
-line two
+line 2
 line three
--- a/added.txt (revision 1)
+++ b/added.txt (revision 2)
@@ -0,0 +1 @@
+hello
--- a/changed.md (revision 1)
+++ b/changed.md (revision 2)
@@ -1,2 +1,2 @@
 alpha
-beta
+gamma
Binary file logo.bin differs (revision 1 → revision 2)
--- a/removed.txt (revision 1)
+++ b/removed.txt (revision 2)
@@ -1 +0,0 @@
-bye
";
    assert_eq!(diff, expected);
    assert!(
        !diff.contains("same.txt"),
        "unchanged files are not in the diff"
    );

    let reverse = store.diff("differ", 2, 1).await.expect("reverse diff");
    assert!(
        reverse.starts_with("--- a/SKILL.md (revision 2)\n+++ b/SKILL.md (revision 1)\n"),
        "{reverse}"
    );
    assert!(reverse.contains("-line 2\n+line two\n"), "{reverse}");
    assert!(reverse.contains("-hello\n"), "{reverse}");

    assert_eq!(store.diff("differ", 1, 1).await.expect("same revision"), "");
    assert_eq!(store.diff("differ", 2, 2).await.expect("same revision"), "");
    store
        .delete("differ", 2, by("alice", "delete"))
        .await
        .expect("delete");
    assert_eq!(
        store
            .diff("differ", 2, 3)
            .await
            .expect("delete keeps content"),
        ""
    );
}

// ---------------------------------------------------------------------------------------------
// list

pub(crate) async fn list_is_in_name_order(store: &dyn Store) {
    // Byte order of the names ("-" before digits before letters), whatever order they came in.
    for name in [
        "beta", "alpha2", "b", "alpha-2", "alpha", "zulu", "a1", "a-1",
    ] {
        store
            .create(
                skill(name, "d", "b"),
                Provenance::Api,
                by("alice", "create"),
            )
            .await
            .expect("create");
    }
    let expected = [
        "a-1", "a1", "alpha", "alpha-2", "alpha2", "b", "beta", "zulu",
    ];
    assert_eq!(live_names(store).await, expected);
    for page_size in [1, 2, 3, 7, 8, 9] {
        let names: Vec<String> = list_all(store, ListFilter::default(), page_size)
            .await
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, expected, "page size {page_size}");
    }
    // A skill changed later does not move.
    store
        .update(
            "alpha",
            1,
            skill("alpha", "changed", "b"),
            by("alice", "edit"),
        )
        .await
        .expect("update");
    assert_eq!(live_names(store).await, expected);
}

pub(crate) async fn list_paginates_with_cursors_over_every_skill_exactly_once(store: &dyn Store) {
    // 25 skills created in a scrambled order.
    for i in 0..25 {
        let n = (i * 7) % 25;
        store
            .create(
                skill(&format!("skill-{n:02}"), &format!("number {n}"), "b"),
                Provenance::Api,
                by("a", "m"),
            )
            .await
            .expect("create");
    }
    let expected: Vec<String> = (0..25).map(|n| format!("skill-{n:02}")).collect();

    // Cursors are opaque: the tests only hand them back, never read or build them.
    let first = store
        .list(ListFilter::default(), None, 10)
        .await
        .expect("page 1");
    let second = store
        .list(ListFilter::default(), first.next_cursor.clone(), 10)
        .await
        .expect("page 2");
    let third = store
        .list(ListFilter::default(), second.next_cursor.clone(), 10)
        .await
        .expect("page 3");
    let sizes = [first.items.len(), second.items.len(), third.items.len()];
    assert_eq!(sizes, [10, 10, 5]);
    assert!(first.next_cursor.is_some() && second.next_cursor.is_some());
    assert_eq!(third.next_cursor, None, "the last page has no cursor");
    let names: Vec<String> = [first.items, second.items, third.items]
        .concat()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names, expected, "every skill exactly once, in name order");
    for (summary_name, n) in names.iter().zip(0..) {
        assert_eq!(summary_name, &format!("skill-{n:02}"));
    }

    // The same cursor gives the same page again.
    let again = store
        .list(ListFilter::default(), first.next_cursor.clone(), 10)
        .await
        .expect("page 2 again");
    let again: Vec<String> = again.items.into_iter().map(|s| s.name).collect();
    assert_eq!(again, expected[10..20]);

    // Exactly one full page: no cursor to an empty page.
    let all = store
        .list(ListFilter::default(), None, 25)
        .await
        .expect("one page");
    assert_eq!((all.items.len(), all.next_cursor), (25, None));
    // A page size larger than everything.
    let all = store
        .list(ListFilter::default(), None, 1000)
        .await
        .expect("one page");
    assert_eq!((all.items.len(), all.next_cursor), (25, None));

    // Skills created between pages: one sorting before the cursor is not seen (no item repeats
    // or shifts), one after it is.
    store
        .create(skill("skill-00a", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    store
        .create(skill("skill-99", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    let rest = list_after(store, first.next_cursor.clone()).await;
    let mut expected_rest: Vec<String> = expected[10..].to_vec();
    expected_rest.push("skill-99".to_owned());
    assert_eq!(rest, expected_rest);
    // A skill deleted between pages drops out without disturbing the rest.
    store
        .delete("skill-15", 1, by("a", "m"))
        .await
        .expect("delete");
    let rest = list_after(store, first.next_cursor).await;
    expected_rest.retain(|n| n != "skill-15");
    assert_eq!(rest, expected_rest);
    assert_eq!(list_all(store, ListFilter::default(), 10).await.len(), 26);
}

async fn list_after(store: &dyn Store, mut cursor: Option<String>) -> Vec<String> {
    let mut names = Vec::new();
    loop {
        let page = store
            .list(ListFilter::default(), cursor, 10)
            .await
            .expect("page");
        names.extend(page.items.into_iter().map(|s| s.name));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return names,
        }
    }
}

pub(crate) async fn list_filters_by_name_prefix(store: &dyn Store) {
    for name in [
        "pdf-a",
        "pdf-b",
        "pdf-c",
        "pdfx",
        "apdf",
        "pd",
        "git-commit",
        "pdf_y",
        "pdf%",
    ] {
        store
            .create(skill(name, "d", "b"), Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    let names = |prefix: &str| {
        let filter = ListFilter {
            name_prefix: Some(prefix.to_owned()),
            ..ListFilter::default()
        };
        async move {
            list_all(store, filter, 2)
                .await
                .into_iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        names("pdf-").await,
        ["pdf-a", "pdf-b", "pdf-c"],
        "prefix with pages of 2"
    );
    assert_eq!(
        names("pdf").await,
        ["pdf%", "pdf-a", "pdf-b", "pdf-c", "pdf_y", "pdfx"]
    );
    assert_eq!(
        names("pdf-a").await,
        ["pdf-a"],
        "a whole name is its own prefix"
    );
    assert_eq!(names("").await.len(), 9, "an empty prefix is no filter");
    assert_eq!(
        names("PDF").await,
        Vec::<String>::new(),
        "prefixes are case-sensitive"
    );
    assert_eq!(names("zzz").await, Vec::<String>::new());
    // `%` and `_` are characters, not wildcards.
    assert_eq!(names("pdf_").await, ["pdf_y"]);
    assert_eq!(names("pdf%").await, ["pdf%"]);
    assert_eq!(names("%").await, Vec::<String>::new());
    assert_eq!(names("p_f").await, Vec::<String>::new());

    store
        .delete("pdf-b", 1, by("a", "m"))
        .await
        .expect("delete");
    assert_eq!(names("pdf-").await, ["pdf-a", "pdf-c"]);
    let with_deleted = ListFilter {
        include_deleted: true,
        name_prefix: Some("pdf-".to_owned()),
        kind: None,
    };
    let all: Vec<(String, bool)> = list_all(store, with_deleted, 1)
        .await
        .into_iter()
        .map(|s| (s.name, s.deleted))
        .collect();
    assert_eq!(
        all,
        [
            ("pdf-a".to_owned(), false),
            ("pdf-b".to_owned(), true),
            ("pdf-c".to_owned(), false)
        ]
    );
}

pub(crate) async fn list_includes_deleted_skills_only_when_asked(store: &dyn Store) {
    for name in ["one", "two", "three", "four"] {
        store
            .create(skill(name, "d", "b"), Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    store.delete("two", 1, by("a", "m")).await.expect("delete");
    store.delete("four", 1, by("a", "m")).await.expect("delete");
    assert_eq!(live_names(store).await, ["one", "three"]);
    let all = list_all(
        store,
        ListFilter {
            include_deleted: true,
            name_prefix: None,
            kind: None,
        },
        3,
    )
    .await;
    let all: Vec<(&str, bool, u64)> = all
        .iter()
        .map(|s| (s.name.as_str(), s.deleted, s.revision))
        .collect();
    assert_eq!(
        all,
        [
            ("four", true, 2),
            ("one", false, 1),
            ("three", false, 1),
            ("two", true, 2)
        ]
    );
    // Pages of live skills are full even when deleted ones sit between them.
    let page = store
        .list(ListFilter::default(), None, 2)
        .await
        .expect("list");
    let names: Vec<&str> = page.items.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["one", "three"]);
    assert_eq!(page.next_cursor, None);

    store
        .restore("two", 2, by("a", "m"))
        .await
        .expect("restore");
    assert_eq!(live_names(store).await, ["one", "three", "two"]);
}

pub(crate) async fn an_invalid_cursor_is_refused(store: &dyn Store) {
    store
        .create(skill("only", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    for cursor in [
        "not a cursor!",
        "not-hex!",
        "zz",
        "%%%",
        "🦀",
        "",
        "\0",
        "' OR 1=1 --",
    ] {
        let error = fails(store.list(ListFilter::default(), Some(cursor.to_owned()), 10)).await;
        assert!(
            matches!(&error, StoreError::InvalidCursor(c) if c == cursor),
            "{cursor:?}: {error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!("the cursor `{cursor}` is not valid; start again without one")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// search

/// Three skills with the word "zebra" in one field each, of similar lengths.
async fn zebras(store: &dyn Store) {
    let skills = [
        skill(
            "zebra-kit",
            "Tools for striped animals in the savanna.",
            "Keep the herd together at night.",
        ),
        skill(
            "bravo-kit",
            "Tools for zebra animals in the savanna.",
            "Keep the herd together at night.",
        ),
        skill(
            "charlie-kit",
            "Tools for striped animals in the savanna.",
            "Keep the zebra herd together at night.",
        ),
    ];
    for content in skills {
        store
            .create(content, Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
}

pub(crate) async fn search_ranks_name_over_description_over_body(store: &dyn Store) {
    zebras(store).await;
    let hits = store.search("zebra", 10).await.expect("search");
    let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(
        names,
        ["zebra-kit", "bravo-kit", "charlie-kit"],
        "name, then description, then body: {hits:?}"
    );
    assert!(
        hits.windows(2).all(|w| w[0].score > w[1].score),
        "scores strictly decrease: {hits:?}"
    );
    assert_eq!(
        hits[1].description,
        "Tools for zebra animals in the savanna."
    );

    // Case, plural and prefix forms find the same skills in the same order.
    for query in ["ZEBRA", "Zebra", "zebras", "zeb"] {
        assert_eq!(
            search_names(store, query).await,
            ["zebra-kit", "bravo-kit", "charlie-kit"],
            "{query}"
        );
    }
    // A skill's name as typed finds it first.
    assert_eq!(
        search_names(store, "charlie-kit")
            .await
            .first()
            .map(String::as_str),
        Some("charlie-kit")
    );
    assert_eq!(
        store.search("zebra", 2).await.expect("search").len(),
        2,
        "the limit is kept"
    );
    assert_eq!(search_names(store, "giraffe").await, Vec::<String>::new());

    // With more skills around (so the word is rare), the order holds.
    for i in 0..10 {
        store
            .create(
                skill(
                    &format!("filler-{i}"),
                    "Unrelated text here.",
                    "Nothing to see.",
                ),
                Provenance::Api,
                by("a", "m"),
            )
            .await
            .expect("create");
    }
    assert_eq!(
        search_names(store, "zebra").await,
        ["zebra-kit", "bravo-kit", "charlie-kit"]
    );
}

pub(crate) async fn search_ranks_a_name_match_over_many_body_mentions(store: &dyn Store) {
    // "A match in the name counts most": a skill named after the word (and describing it)
    // ranks above a skill of about the same length that only mentions it in its body, however
    // often. This is the shape of real queries: "create an MCP server" against the corpus.
    // Column weights alone would not do: BM25 saturates term frequency, so `river-guide` (40 body
    // mentions) would outrank `otter` (name, description, 5 body mentions). Ranking is by
    // tiers: name, then description, then relevance.
    let otter_body = format!(
        "{}{}",
        "The otter is a mammal. ".repeat(5),
        "Other notes about habitat and food. ".repeat(30)
    );
    store
        .create(
            skill("otter", "Everything about the otter.", &otter_body),
            Provenance::Api,
            by("a", "m"),
        )
        .await
        .expect("create");
    let river_body = "The otter swims in the river. ".repeat(40);
    store
        .create(
            skill(
                "river-guide",
                "A guide to rivers and their animals.",
                &river_body,
            ),
            Provenance::Api,
            by("a", "m"),
        )
        .await
        .expect("create");
    for i in 0..20 {
        let filler = skill(
            &format!("filler-{i}"),
            "Unrelated text here.",
            &"Nothing to see here at all. ".repeat(i * 10 + 1),
        );
        store
            .create(filler, Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    let hits = store.search("otter", 10).await.expect("search");
    let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["otter", "river-guide"], "{hits:?}");
}

pub(crate) async fn search_snippets_mark_the_match(store: &dyn Store) {
    zebras(store).await;
    store
        .create(
            skill(
                "long-body",
                "Something else entirely.",
                &format!(
                    "{} the okapi lives here. {}",
                    "filler words ".repeat(200),
                    "more ".repeat(200)
                ),
            ),
            Provenance::Api,
            by("a", "m"),
        )
        .await
        .expect("create");
    for hit in store.search("zebra", 10).await.expect("search") {
        assert!(
            hit.snippet.contains("[zebra]"),
            "{}: {:?}",
            hit.name,
            hit.snippet
        );
    }
    let hits = store.search("okapi", 10).await.expect("search");
    assert_eq!(hits.len(), 1);
    assert!(
        hits[0].snippet.contains("the [okapi] lives"),
        "{:?}",
        hits[0].snippet
    );
    assert!(
        hits[0].snippet.len() < 400,
        "a snippet is an excerpt, not the body: {} bytes",
        hits[0].snippet.len()
    );
    // Stemmed and prefix matches are marked too.
    let hits = store.search("zebras", 10).await.expect("search");
    assert!(
        hits.iter().all(|h| h.snippet.contains("[zebra]")),
        "{hits:?}"
    );
    let hits = store.search("zeb", 10).await.expect("search");
    assert!(
        hits.iter().all(|h| h.snippet.contains("[zebra]")),
        "{hits:?}"
    );
}

pub(crate) async fn search_follows_updates_deletes_and_rollbacks(store: &dyn Store) {
    store
        .create(
            skill("mover", "About lemurs", "Lemurs jump."),
            Provenance::Api,
            by("a", "m"),
        )
        .await
        .expect("create");
    assert_eq!(search_names(store, "lemurs").await, ["mover"]);
    store
        .update(
            "mover",
            1,
            skill("mover", "About tapirs", "Tapirs swim."),
            by("a", "m"),
        )
        .await
        .expect("update");
    assert_eq!(
        search_names(store, "lemurs").await,
        Vec::<String>::new(),
        "old content is not searchable"
    );
    assert_eq!(search_names(store, "tapirs").await, ["mover"]);
    let hits = store.search("tapirs", 10).await.expect("search");
    assert_eq!(hits[0].description, "About tapirs");
    store
        .delete("mover", 2, by("a", "m"))
        .await
        .expect("delete");
    assert_eq!(
        search_names(store, "tapirs").await,
        Vec::<String>::new(),
        "deleted skills are not found"
    );
    assert_eq!(
        search_names(store, "mover").await,
        Vec::<String>::new(),
        "not even by name"
    );
    store
        .restore("mover", 3, by("a", "m"))
        .await
        .expect("restore");
    assert_eq!(search_names(store, "tapirs").await, ["mover"]);
    store
        .rollback("mover", 1, 4, by("a", "m"))
        .await
        .expect("rollback");
    assert_eq!(search_names(store, "lemurs").await, ["mover"]);
    assert_eq!(search_names(store, "tapirs").await, Vec::<String>::new());
    // Import keeps the index too.
    let item = ImportItem {
        snapshot: skill("mover", "About okapis", "Okapis hide."),
        provenance: imported("/mover"),
    };
    store
        .import(vec![item], by("import", "m"))
        .await
        .expect("import");
    assert_eq!(search_names(store, "okapis").await, ["mover"]);
    assert_eq!(search_names(store, "lemurs").await, Vec::<String>::new());
}

pub(crate) async fn hostile_search_queries_never_fail(store: &dyn Store) {
    zebras(store).await;
    let long_mixed = "zebra \"quoted AND (NEAR col: ^x * OR' ".repeat(10 * 1024 / 38 + 1);
    let long_word = "z".repeat(10 * 1024);
    let long_words = "word ".repeat(2 * 1024);
    let mut queries: Vec<&str> = vec![
        "\"",
        "'",
        "\"\"",
        "''",
        "*",
        "**",
        "AND OR NOT",
        "AND",
        "OR",
        "NOT",
        "NEAR",
        "(",
        ")",
        "()",
        "NEAR(",
        "NEAR(zebra kit, 2)",
        "col:",
        "name:",
        "name:zebra",
        "body:zebra",
        "^",
        "^zebra",
        "",
        " ",
        "\t\n",
        "!@#$%^&*()_+-=[]{};:,.<>/?|`~",
        "\\",
        "\0",
        "-zebra",
        "+zebra",
        "zebra-",
        "zebra AND",
        "AND zebra",
        "zebra OR",
        "zebra NOT",
        "{zebra kit}",
        "zebra\"",
        "\"zebra",
        "zebra*",
        "*zebra",
        "z*e*b*r*a",
        "🦀",
        "🦀 zebra",
        "zebra🦀kit",
        "日本語",
        "naïve café",
        "ＡＢＣ",
        "\u{200b}",
        "a\u{301}",
        "½",
        "²³",
        "Ⅻ",
        "ǅ",
        "٣",
        "ﷺ",
        "\u{feff}zebra",
        "zebra\u{0}kit",
        "%",
        "_",
        "%zebra%",
        "' OR 1=1 --",
        "'; DROP TABLE skills; --",
        "\u{202e}arbez",
    ];
    queries.push(&long_mixed);
    queries.push(&long_word);
    queries.push(&long_words);
    for query in &queries {
        let result = store.search(query, 10).await;
        let preview: String = query.chars().take(40).collect();
        assert!(
            result.is_ok(),
            "{preview:?} ({} bytes): {:?}",
            query.len(),
            result.err()
        );
    }
    assert!(long_mixed.len() >= 10 * 1024);

    // Operators and quotes around a real word are just text: the word is still found.
    for query in [
        "\"zebra",
        "zebra\"",
        "zebra*",
        "(zebra)",
        "name:zebra",
        "^zebra",
        "zebra AND",
        "NOT zebra",
        "🦀 zebra",
        "'zebra'",
        "\u{feff}zebra",
    ] {
        assert_eq!(
            search_names(store, query).await.first().map(String::as_str),
            Some("zebra-kit"),
            "{query}"
        );
    }
    // Nothing to search for finds nothing (and fails nothing).
    for query in ["", "   ", "!!!", "🦀", "\"\"", "*"] {
        assert_eq!(
            search_names(store, query).await,
            Vec::<String>::new(),
            "{query:?}"
        );
    }
    // The store still works afterwards.
    assert_eq!(
        live_names(store).await,
        ["bravo-kit", "charlie-kit", "zebra-kit"]
    );
    assert_eq!(
        search_names(store, &long_mixed)
            .await
            .first()
            .map(String::as_str),
        Some("zebra-kit")
    );
}

// ---------------------------------------------------------------------------------------------
// import

pub(crate) async fn import_creates_new_skills_and_skips_unchanged_ones(store: &dyn Store) {
    let a = snapshot(md("imp-a", "First", "A body."), &[("ref.md", b"A ref\n")]);
    let b = skill("imp-b", "Second", "B body.");
    let items = || {
        vec![
            ImportItem {
                snapshot: a.clone(),
                provenance: imported("/src/imp-a"),
            },
            ImportItem {
                snapshot: b.clone(),
                provenance: imported("/src/imp-b"),
            },
        ]
    };
    let report = store
        .import(items(), by("importer", "first import"))
        .await
        .expect("import");
    assert_eq!(report.created, ["imp-a", "imp-b"]);
    assert!(
        report.updated.is_empty() && report.unchanged.is_empty() && report.shadowed.is_empty(),
        "{report:?}"
    );
    let stored = store.get("imp-a", None).await.expect("get");
    assert_eq!(
        (stored.revision, &stored.snapshot, &stored.provenance),
        (1, &a, &imported("/src/imp-a"))
    );
    assert_eq!(stored.content_hash, a.content_hash());
    assert_eq!(
        history_of(store, "imp-a").await,
        [rev(1, "create", "importer", "first import")]
    );
    assert_eq!(search_names(store, "First").await, ["imp-a"]);

    for round in 0..3 {
        let report = store
            .import(items(), by("importer", "again"))
            .await
            .expect("re-import");
        assert_eq!(report.unchanged, ["imp-a", "imp-b"], "round {round}");
        assert!(
            report.created.is_empty() && report.updated.is_empty() && report.shadowed.is_empty(),
            "{report:?}"
        );
    }
    assert_eq!(
        history_of(store, "imp-a").await.len(),
        1,
        "unchanged content gets no revision"
    );
    assert_eq!(history_of(store, "imp-b").await.len(), 1);
    assert_eq!(store.get("imp-b", None).await.expect("get").revision, 1);

    // An empty import does nothing.
    let report = store
        .import(Vec::new(), by("importer", "nothing"))
        .await
        .expect("empty import");
    assert_eq!(report, skillpath_store::ImportReport::default());
}

/// A folder item read with a stamp.
fn stamped(snapshot: SkillSnapshot, folder: &str, stamp: &str) -> FolderImport {
    FolderImport {
        provenance: imported(folder),
        content: FolderContent::Read {
            snapshot,
            stamp: Some(FolderStamp {
                folder: folder.to_owned(),
                stamp: stamp.to_owned(),
            }),
        },
    }
}

/// A folder item left unread because its stamp matched.
fn unread(name: &str, folder: &str) -> FolderImport {
    FolderImport {
        provenance: imported(folder),
        content: FolderContent::Unchanged {
            name: name.to_owned(),
        },
    }
}

fn recorded(folder: &str, name: &str, stamp: &str) -> RecordedStamp {
    RecordedStamp {
        folder: folder.to_owned(),
        name: name.to_owned(),
        stamp: stamp.to_owned(),
    }
}

async fn stamps_of(store: &dyn Store) -> Vec<RecordedStamp> {
    let mut stamps = store.folder_stamps().await.expect("folder stamps");
    stamps.sort_by(|a, b| a.folder.cmp(&b.folder));
    stamps
}

pub(crate) async fn folder_stamps_follow_the_revision_they_were_read_for(store: &dyn Store) {
    let report = store
        .import_folders(
            vec![
                stamped(skill("alpha", "A", "one"), "/s/alpha", "a1"),
                stamped(skill("beta", "B", "one"), "/s/beta", "b1"),
                FolderImport::from(ImportItem {
                    snapshot: skill("gamma", "G", "one"),
                    provenance: imported("/s/gamma"),
                }),
            ],
            by("import", "one"),
        )
        .await
        .expect("import");
    assert_eq!(report.created, ["alpha", "beta", "gamma"]);
    assert_eq!(
        stamps_of(store).await,
        [
            recorded("/s/alpha", "alpha", "a1"),
            recorded("/s/beta", "beta", "b1")
        ],
        "a folder read without a stamp records none"
    );

    // An unread folder is reported unchanged and writes nothing; a changed one moves its stamp
    // to the new revision; an unchanged one read again takes its new stamp.
    let report = store
        .import_folders(
            vec![
                unread("alpha", "/s/alpha"),
                stamped(skill("beta", "B", "two"), "/s/beta", "b2"),
                stamped(skill("gamma", "G", "one"), "/s/gamma", "g1"),
            ],
            by("import", "two"),
        )
        .await
        .expect("import");
    assert_eq!(report.unchanged, ["alpha", "gamma"]);
    assert_eq!(report.updated, ["beta"]);
    assert_eq!(report.not_read, 1);
    assert_eq!(history_of(store, "alpha").await.len(), 1);
    assert_eq!(
        stamps_of(store).await,
        [
            recorded("/s/alpha", "alpha", "a1"),
            recorded("/s/beta", "beta", "b2"),
            recorded("/s/gamma", "gamma", "g1"),
        ]
    );

    // A change that did not come from the folder (an update, a delete) makes its stamp stale:
    // the folder must be read again.
    let beta = store.get("beta", None).await.expect("get");
    store
        .update(
            "beta",
            beta.revision,
            skill("beta", "B", "edited by an agent"),
            by("agent", "edit"),
        )
        .await
        .expect("update");
    let gamma = store.get("gamma", None).await.expect("get");
    store
        .delete("gamma", gamma.revision, by("agent", "delete"))
        .await
        .expect("delete");
    assert_eq!(
        stamps_of(store).await,
        [recorded("/s/alpha", "alpha", "a1")]
    );

    // An unread folder takes part in shadowing by its recorded name.
    let report = store
        .import_folders(
            vec![
                unread("alpha", "/s/alpha"),
                stamped(skill("alpha", "Another A", "x"), "/t/alpha", "t1"),
            ],
            by("import", "three"),
        )
        .await
        .expect("import");
    assert_eq!(report.unchanged, ["alpha"]);
    assert_eq!(report.shadowed.len(), 1, "{report:?}");
    assert_eq!(report.shadowed[0].path, "/t/alpha");
    assert_eq!(store.get("alpha", None).await.expect("get").revision, 1);
}

pub(crate) async fn import_gives_changed_content_exactly_one_revision(store: &dyn Store) {
    store
        .create(
            skill("api-made", "Made by API", "v1"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    store
        .import(
            vec![ImportItem {
                snapshot: skill("imp", "v1", "body one"),
                provenance: imported("/s/imp"),
            }],
            by("import", "one"),
        )
        .await
        .expect("import");

    let changed = snapshot(md("imp", "v2", "body two"), &[("new.txt", b"new file")]);
    let api_changed = skill("api-made", "Now from a folder", "v2");
    let items = vec![
        ImportItem {
            snapshot: changed.clone(),
            provenance: imported("/s/imp"),
        },
        ImportItem {
            snapshot: api_changed.clone(),
            provenance: imported("/s/api-made"),
        },
    ];
    let report = store
        .import(items, by("import", "two"))
        .await
        .expect("import");
    assert_eq!(report.updated, ["imp", "api-made"]);
    assert!(
        report.created.is_empty() && report.unchanged.is_empty(),
        "{report:?}"
    );
    assert_eq!(
        history_of(store, "imp").await,
        [
            rev(1, "create", "import", "one"),
            rev(2, "update", "import", "two")
        ]
    );
    assert_eq!(
        history_of(store, "api-made").await,
        [
            rev(1, "create", "alice", "create"),
            rev(2, "update", "import", "two")
        ]
    );
    let stored = store.get("imp", None).await.expect("get");
    assert_eq!(
        (
            stored.revision,
            &stored.snapshot,
            stored.description.as_str()
        ),
        (2, &changed, "v2")
    );
    assert_eq!(
        store.get("api-made", None).await.expect("get").snapshot,
        api_changed
    );

    // Only a file changed: still exactly one revision.
    let file_changed = snapshot(
        md("imp", "v2", "body two"),
        &[("new.txt", b"new file, edited")],
    );
    let report = store
        .import(
            vec![ImportItem {
                snapshot: file_changed.clone(),
                provenance: imported("/s/imp"),
            }],
            by("import", "three"),
        )
        .await
        .expect("import");
    assert_eq!(report.updated, ["imp"]);
    assert_eq!(history_of(store, "imp").await.len(), 3);
    assert_eq!(
        store.get("imp", None).await.expect("get").snapshot,
        file_changed
    );
}

pub(crate) async fn import_is_one_transaction(store: &dyn Store) {
    let kept = skill("kept", "Original", "Original body about pangolins.");
    store
        .create(kept.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    let items = vec![
        ImportItem {
            snapshot: skill("fresh", "New", "About narwhals."),
            provenance: imported("/s/fresh"),
        },
        ImportItem {
            snapshot: skill("kept", "Changed", "Changed body about axolotls."),
            provenance: imported("/s/kept"),
        },
        ImportItem {
            snapshot: snapshot("no frontmatter, no name\n".to_owned(), &[]),
            provenance: imported("/s/broken"),
        },
    ];
    let error = fails(store.import(items, by("import", "all or nothing"))).await;
    assert!(matches!(error, StoreError::InvalidSkill(_)), "{error:?}");

    assert!(
        matches!(
            store.get("fresh", None).await,
            Err(StoreError::NotFound { .. })
        ),
        "the created skill was rolled back"
    );
    let current = store.get("kept", None).await.expect("get");
    assert_eq!(
        (current.revision, &current.snapshot),
        (1, &kept),
        "the update was rolled back"
    );
    assert_eq!(history_of(store, "kept").await.len(), 1);
    assert_eq!(live_names(store).await, ["kept"]);
    assert_eq!(
        search_names(store, "narwhals").await,
        Vec::<String>::new(),
        "the search index was rolled back too"
    );
    assert_eq!(search_names(store, "axolotls").await, Vec::<String>::new());
    assert_eq!(search_names(store, "pangolins").await, ["kept"]);

    // The same import without the broken item goes through.
    let items = vec![
        ImportItem {
            snapshot: skill("fresh", "New", "About narwhals."),
            provenance: imported("/s/fresh"),
        },
        ImportItem {
            snapshot: skill("kept", "Changed", "Changed body about axolotls."),
            provenance: imported("/s/kept"),
        },
    ];
    let report = store
        .import(items, by("import", "fixed"))
        .await
        .expect("import");
    assert_eq!(
        (report.created, report.updated),
        (vec!["fresh".to_owned()], vec!["kept".to_owned()])
    );
}

pub(crate) async fn import_restores_a_deleted_skill(store: &dyn Store) {
    let same = skill("returning", "Back again", "Same content about ibexes.");
    let before = skill("changed-back", "Before", "Old.");
    let after = snapshot(
        md("changed-back", "After", "New content about yaks."),
        &[("f.txt", b"f")],
    );
    store
        .create(same.clone(), Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    store
        .create(before, Provenance::Api, by("alice", "create"))
        .await
        .expect("create");
    store
        .delete("returning", 1, by("alice", "delete"))
        .await
        .expect("delete");
    store
        .delete("changed-back", 1, by("alice", "delete"))
        .await
        .expect("delete");

    let items = vec![
        ImportItem {
            snapshot: same.clone(),
            provenance: imported("/s/returning"),
        },
        ImportItem {
            snapshot: after.clone(),
            provenance: imported("/s/changed-back"),
        },
    ];
    let report = store
        .import(items, by("import", "again"))
        .await
        .expect("import");
    assert_eq!(report.updated, ["returning", "changed-back"], "{report:?}");
    assert!(
        report.created.is_empty() && report.unchanged.is_empty(),
        "{report:?}"
    );

    let returning = store.get("returning", None).await.expect("get");
    assert_eq!(
        (returning.revision, returning.deleted, &returning.snapshot),
        (3, false, &same)
    );
    let changed = store.get("changed-back", None).await.expect("get");
    assert_eq!(
        (changed.revision, changed.deleted, &changed.snapshot),
        (3, false, &after)
    );
    assert_eq!(
        history_of(store, "changed-back").await.last(),
        Some(&rev(3, "restore", "import", "again")),
        "one revision"
    );
    assert_eq!(history_of(store, "returning").await.len(), 3);
    assert_eq!(live_names(store).await, ["changed-back", "returning"]);
    assert_eq!(search_names(store, "ibexes").await, ["returning"]);
    assert_eq!(search_names(store, "yaks").await, ["changed-back"]);
}

pub(crate) async fn import_keeps_the_first_of_two_items_with_one_name(store: &dyn Store) {
    let first = skill("twin", "The first twin", "First.");
    let second = skill("twin", "The second twin", "Second.");
    let items = vec![
        ImportItem {
            snapshot: first.clone(),
            provenance: imported("/project/.claude/skills/twin"),
        },
        ImportItem {
            snapshot: skill("single", "d", "b"),
            provenance: imported("/project/.claude/skills/single"),
        },
        ImportItem {
            snapshot: second.clone(),
            provenance: imported("/home/me/.claude/skills/twin"),
        },
        ImportItem {
            snapshot: first.clone(),
            provenance: imported("/elsewhere/twin"),
        },
    ];
    let report = store
        .import(items, by("import", "both"))
        .await
        .expect("import");
    assert_eq!(report.created, ["twin", "single"]);
    let shadowed: Vec<(&str, &str, &str)> = report
        .shadowed
        .iter()
        .map(|s| (s.name.as_str(), s.path.as_str(), s.kept.as_str()))
        .collect();
    assert_eq!(
        shadowed,
        [
            (
                "twin",
                "/home/me/.claude/skills/twin",
                "/project/.claude/skills/twin"
            ),
            ("twin", "/elsewhere/twin", "/project/.claude/skills/twin"),
        ]
    );
    let stored = store.get("twin", None).await.expect("get");
    assert_eq!((stored.revision, &stored.snapshot), (1, &first));
    assert_eq!(stored.provenance, imported("/project/.claude/skills/twin"));
    assert_eq!(history_of(store, "twin").await.len(), 1);

    // Against a stored skill: the first item decides, the second is reported, one revision.
    let items = vec![
        ImportItem {
            snapshot: second.clone(),
            provenance: imported("/b/twin"),
        },
        ImportItem {
            snapshot: first.clone(),
            provenance: imported("/a/twin"),
        },
    ];
    let report = store
        .import(items, by("import", "swap"))
        .await
        .expect("import");
    assert_eq!(report.updated, ["twin"]);
    assert_eq!(report.shadowed.len(), 1);
    assert_eq!(
        (
            report.shadowed[0].path.as_str(),
            report.shadowed[0].kept.as_str()
        ),
        ("/a/twin", "/b/twin")
    );
    assert_eq!(store.get("twin", None).await.expect("get").snapshot, second);
    assert_eq!(history_of(store, "twin").await.len(), 2);
}

pub(crate) async fn import_round_trips_binary_files(store: &dyn Store) {
    let every_byte: Vec<u8> = (0..=255).collect();
    let not_utf8: &[u8] = &[
        0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0xff, 0xfe, 0xfd,
    ];
    let png_header: &[u8] = &[
        0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 0x0d,
    ];
    let big: Vec<u8> = (0..300_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let content = snapshot(
        "---\r\nname: binary-skill\r\ndescription: Has binary files\r\n---\r\n\r\nCRLF body ✓\r\n"
            .to_owned(),
        &[
            ("every-byte.bin", &every_byte),
            ("not-utf8.txt", not_utf8),
            ("assets/logo.png", png_header),
            ("empty", b""),
            ("nul.bin", &[0, 0, 0]),
            ("deep/er/and/deeper/file.json", b"{\"a\": [1, 2]}\n"),
            ("naïve name with spaces.md", "ünïcödé ✓\n".as_bytes()),
            ("big.bin", &big),
            ("crlf.txt", b"a\r\nb\r\n"),
            ("no-newline.txt", b"no newline at end"),
        ],
    );
    let report = store
        .import(
            vec![ImportItem {
                snapshot: content.clone(),
                provenance: imported("/s/binary-skill"),
            }],
            by("import", "binary"),
        )
        .await
        .expect("import");
    assert_eq!(report.created, ["binary-skill"]);
    let stored = store.get("binary-skill", None).await.expect("get");
    assert_eq!(
        stored.snapshot.skill_md, content.skill_md,
        "SKILL.md byte for byte, CRLF kept"
    );
    assert_eq!(stored.snapshot.files.len(), content.files.len());
    for (got, want) in stored.snapshot.files.iter().zip(&content.files) {
        assert_eq!(got.path, want.path);
        assert!(
            got.bytes == want.bytes,
            "{}: {} bytes stored, {} given",
            want.path,
            got.bytes.len(),
            want.bytes.len()
        );
    }
    assert_eq!(stored.content_hash, content.content_hash());
    assert_eq!(
        stored.description, "Has binary files",
        "CRLF frontmatter is read"
    );
    let report = store
        .import(
            vec![ImportItem {
                snapshot: content,
                provenance: imported("/s/binary-skill"),
            }],
            by("import", "again"),
        )
        .await
        .expect("re-import");
    assert_eq!(
        report.unchanged,
        ["binary-skill"],
        "binary content hashes the same after a round trip"
    );
}

// ---------------------------------------------------------------------------------------------
// files

pub(crate) async fn files_keep_their_bytes_and_sha256(store: &dyn Store) {
    let every_byte: Vec<u8> = (0..=255).collect();
    let content = snapshot(
        md("hashes", "d", "b"),
        &[
            ("abc.txt", b"abc"),
            ("empty.txt", b""),
            ("bytes.bin", &every_byte),
        ],
    );
    store
        .create(content.clone(), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    let stored = store.get("hashes", None).await.expect("get");
    let file = |path: &str| {
        stored
            .snapshot
            .files
            .iter()
            .find(|f| f.path == path)
            .expect("file stored")
    };

    assert_eq!(file("abc.txt").bytes, b"abc");
    assert_eq!(
        file("abc.txt").sha256(),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(file("empty.txt").bytes.len(), 0);
    assert_eq!(
        file("empty.txt").sha256(),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(file("bytes.bin").bytes, every_byte);
    assert_eq!(
        file("bytes.bin").sha256(),
        "sha256:40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880"
    );
    let sizes: Vec<(&str, usize)> = stored
        .snapshot
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.bytes.len()))
        .collect();
    assert_eq!(
        sizes,
        [("abc.txt", 3), ("bytes.bin", 256), ("empty.txt", 0)],
        "sorted by path, sizes as given"
    );
    assert_eq!(
        stored.snapshot.size(),
        content.skill_md.len() as u64 + 3 + 256
    );
    assert_eq!(
        skillpath_model::sha256_hex(b"abc"),
        file("abc.txt").sha256()
    );
    assert!(is_sha256(&stored.content_hash));
    assert_eq!(stored.content_hash, content.content_hash());

    // The content hash covers paths and bytes: a rename or a one-byte change moves it.
    let renamed = snapshot(
        md("hashes", "d", "b"),
        &[
            ("abc2.txt", b"abc"),
            ("empty.txt", b""),
            ("bytes.bin", &every_byte),
        ],
    );
    let one_byte = snapshot(
        md("hashes", "d", "b"),
        &[
            ("abc.txt", b"abd"),
            ("empty.txt", b""),
            ("bytes.bin", &every_byte),
        ],
    );
    let moved = snapshot(
        md("hashes", "d", "b"),
        &[
            ("abc.txt", b""),
            ("empty.txt", b"abc"),
            ("bytes.bin", &every_byte),
        ],
    );
    let hashes = [
        content.content_hash(),
        renamed.content_hash(),
        one_byte.content_hash(),
        moved.content_hash(),
    ];
    for (i, a) in hashes.iter().enumerate() {
        for b in &hashes[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

pub(crate) async fn identical_files_in_several_skills_stay_independent(store: &dyn Store) {
    let license = b"Licensed under the Apache License, Version 2.0\n".repeat(50);
    let shared_script = vec![0u8, 1, 2, 3, 0xff];
    for name in ["lic-a", "lic-b", "lic-c"] {
        let content = snapshot(
            md(name, "d", "b"),
            &[
                ("LICENSE.txt", &license),
                ("scripts/tool.bin", &shared_script),
                ("notes.md", format!("notes for {name}").as_bytes()),
            ],
        );
        store
            .create(content, Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    // The same bytes twice inside one skill, under two paths.
    store
        .create(
            snapshot(
                md("lic-d", "d", "b"),
                &[("LICENSE", &license), ("copy/LICENSE", &license)],
            ),
            Provenance::Api,
            by("a", "m"),
        )
        .await
        .expect("create");
    let expected_sha = skillpath_model::sha256_hex(&license);
    for name in ["lic-a", "lic-b", "lic-c"] {
        let stored = store.get(name, None).await.expect("get");
        let license_file = stored
            .snapshot
            .files
            .iter()
            .find(|f| f.path == "LICENSE.txt")
            .expect("license");
        assert_eq!(
            (license_file.bytes.as_slice(), license_file.sha256()),
            (license.as_slice(), expected_sha.clone()),
            "{name}"
        );
        let notes = stored
            .snapshot
            .files
            .iter()
            .find(|f| f.path == "notes.md")
            .expect("notes");
        assert_eq!(notes.bytes, format!("notes for {name}").as_bytes());
    }
    let d = store.get("lic-d", None).await.expect("get");
    assert!(
        d.snapshot
            .files
            .iter()
            .all(|f| f.bytes == license && f.sha256() == expected_sha)
    );
    assert_eq!(d.snapshot.files.len(), 2);

    // Changing the file in one skill changes it there only.
    let new_license = b"MIT License\n".to_vec();
    let changed = snapshot(
        md("lic-b", "d", "b"),
        &[
            ("LICENSE.txt", &new_license),
            ("scripts/tool.bin", &shared_script),
        ],
    );
    store
        .update("lic-b", 1, changed, by("a", "relicense"))
        .await
        .expect("update");
    let get_license = |stored: &StoredSkill| {
        stored
            .snapshot
            .files
            .iter()
            .find(|f| f.path == "LICENSE.txt")
            .map(|f| f.bytes.clone())
    };
    assert_eq!(
        get_license(&store.get("lic-b", None).await.expect("get")),
        Some(new_license)
    );
    assert_eq!(
        get_license(&store.get("lic-b", Some(1)).await.expect("get")),
        Some(license.clone()),
        "history keeps the old bytes"
    );
    assert_eq!(
        get_license(&store.get("lic-a", None).await.expect("get")),
        Some(license.clone())
    );
    assert_eq!(
        get_license(&store.get("lic-c", None).await.expect("get")),
        Some(license.clone())
    );
    // Deleting a skill that shares a file leaves the others whole.
    store
        .delete("lic-a", 1, by("a", "m"))
        .await
        .expect("delete");
    assert_eq!(
        get_license(&store.get("lic-c", None).await.expect("get")),
        Some(license)
    );
}

// ---------------------------------------------------------------------------------------------
// concurrency

pub(crate) async fn concurrent_updates_with_one_expected_revision_let_exactly_one_win(
    store: Arc<dyn Store>,
) {
    store
        .create(
            skill("raced", "v1", "start"),
            Provenance::Api,
            by("setup", "create"),
        )
        .await
        .expect("create");
    for round in 1..=20u64 {
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        let writer = |who: &'static str| {
            let store = Arc::clone(&store);
            let barrier = Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                let content = skill("raced", &format!("round {round} by {who}"), who);
                store
                    .update("raced", round, content, by(who, &format!("round {round}")))
                    .await
            })
        };
        let (a, b) = (writer("task-a"), writer("task-b"));
        let results = [a.await.expect("task a ran"), b.await.expect("task b ran")];
        let winners: Vec<&StoredSkill> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: exactly one update wins: {results:?}"
        );
        assert_eq!(winners[0].revision, round + 1);
        let loser = results
            .iter()
            .find_map(|r| r.as_ref().err())
            .expect("one loser");
        assert!(
            matches!(loser, StoreError::StaleRevision { expected, actual, .. } if *expected == round && *actual == round + 1),
            "round {round}: {loser:?}"
        );
        let current = store.get("raced", None).await.expect("get");
        assert_eq!(current.revision, round + 1);
        assert_eq!(
            current.snapshot, winners[0].snapshot,
            "round {round}: the winner's content is current"
        );
        let history = store.history("raced").await.expect("history");
        assert_eq!(
            history.len() as u64,
            round + 1,
            "round {round}: one revision per round"
        );
        let author = &history.last().expect("a revision").author;
        assert!(
            current.description.ends_with(author.as_str()),
            "the last revision is the winner's"
        );
    }
}

pub(crate) async fn concurrent_creates_of_one_name_let_exactly_one_win(store: Arc<dyn Store>) {
    for round in 0..10 {
        let name = format!("born-{round}");
        let barrier = Arc::new(tokio::sync::Barrier::new(3));
        let tasks: Vec<_> = ["x", "y", "z"]
            .into_iter()
            .map(|who| {
                let (store, barrier, name) =
                    (Arc::clone(&store), Arc::clone(&barrier), name.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    store
                        .create(skill(&name, who, who), Provenance::Api, by(who, "create"))
                        .await
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.expect("task ran"));
        }
        let winners: Vec<&StoredSkill> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        for error in results.iter().filter_map(|r| r.as_ref().err()) {
            assert!(
                matches!(
                    error,
                    StoreError::AlreadyExists {
                        revision: 1,
                        deleted: false,
                        ..
                    }
                ),
                "{error:?}"
            );
        }
        let stored = store.get(&name, None).await.expect("get");
        assert_eq!(
            (stored.revision, &stored.description),
            (1, &winners[0].description)
        );
        assert_eq!(store.history(&name).await.expect("history").len(), 1);
    }
}

// ---------------------------------------------------------------------------------------------
// API keys

/// A key made and stored as `skillpath keys create` does; the key text and its listing.
async fn stored_key(store: &dyn Store, name: &str, role: Role) -> (String, KeyInfo) {
    let new =
        keys::generate(name, Grant::acting_for(name, role).expiring_in(3_600)).expect("randomness");
    let info = store.create_key(new.stored).await.expect("create key");
    (new.key, info)
}

pub(crate) async fn keys_are_listed_without_the_key_and_revoked_by_name(store: &dyn Store) {
    let (key, info) = stored_key(store, "ci", Role::Author).await;
    assert_eq!((info.name.as_str(), info.role), ("ci", Role::Author));
    assert!(
        key.starts_with(&format!("{}_", info.prefix)),
        "{key} {info:?}"
    );
    assert!(is_rfc3339_utc(&info.created_at), "{info:?}");
    assert!(
        info.expires_at
            .as_deref()
            .is_some_and(|e| e > info.created_at.as_str())
    );
    let (_, reader) = stored_key(store, "alice", Role::Reader).await;
    let listed = store.list_keys().await.expect("list");
    assert_eq!(listed, [reader, info.clone()]);
    let shown = format!("{listed:?}");
    assert!(!shown.contains(&key[info.prefix.len()..]), "{shown}");

    let again = keys::generate("ci", Grant::acting_for("ci", Role::Admin)).expect("randomness");
    match store.create_key(again.stored).await {
        Err(StoreError::KeyExists(name)) => assert_eq!(name, "ci"),
        other => panic!("a second active `ci`: {other:?}"),
    }
    let revoked = store.revoke_key("ci").await.expect("revoke");
    assert!(revoked.revoked_at.is_some());
    assert!(matches!(store.revoke_key("ci").await, Err(StoreError::KeyNotFound(n)) if n == "ci"));
    assert!(matches!(
        store.revoke_key("nobody").await,
        Err(StoreError::KeyNotFound(_))
    ));
    // The name is free again; the revoked key stays listed.
    let (_, new_ci) = stored_key(store, "ci", Role::Admin).await;
    let listed = store.list_keys().await.expect("list");
    let ci: Vec<_> = listed.iter().filter(|k| k.name == "ci").collect();
    assert_eq!(ci.len(), 2, "{listed:?}");
    assert_eq!(
        ci.iter()
            .filter(|k| k.revoked_at.is_none())
            .map(|k| &k.prefix)
            .collect::<Vec<_>>(),
        [&new_ci.prefix]
    );
}

pub(crate) async fn authentication_accepts_only_active_matching_keys(store: &dyn Store) {
    let (key, info) = stored_key(store, "deploy", Role::Reader).await;
    let accepted = keys::authenticate(store, &key).await.expect("a good key");
    assert_eq!(
        (accepted.name.as_str(), accepted.role),
        ("deploy", Role::Reader)
    );
    let listed = store.list_keys().await.expect("list");
    let used = listed[0].last_used_at.clone().expect("its use is recorded");
    assert!(is_rfc3339_utc(&used));
    // Within the minute, a use is not written again.
    keys::authenticate(store, &key).await.expect("again");
    assert_eq!(
        store.list_keys().await.expect("list")[0].last_used_at,
        Some(used)
    );

    // The right id with a wrong secret, an unknown id, and things that are not keys.
    let wrong_secret = format!("{}_{}", info.prefix, "0".repeat(64));
    let unknown_id = format!("sp_000000000000_{}", &key[info.prefix.len() + 1..]);
    for presented in [wrong_secret, unknown_id] {
        assert!(
            matches!(
                keys::authenticate(store, &presented).await,
                Err(AuthError::Unknown)
            ),
            "{presented}"
        );
    }
    for presented in [
        "",
        "sp_",
        "Bearer x",
        &key[..key.len() - 1],
        &key.to_uppercase(),
    ] {
        assert!(
            matches!(
                keys::authenticate(store, presented).await,
                Err(AuthError::Malformed)
            ),
            "{presented}"
        );
    }

    store.revoke_key("deploy").await.expect("revoke");
    match keys::authenticate(store, &key).await {
        Err(AuthError::Revoked(name)) => assert_eq!(name, "deploy"),
        other => panic!("a revoked key: {other:?}"),
    }

    let mut expired = keys::generate("old", Grant::acting_for("old", Role::Admin).expiring_in(60))
        .expect("randomness");
    expired.stored.info.expires_at = Some("2020-01-01T00:00:00.000Z".to_owned());
    store.create_key(expired.stored).await.expect("create");
    match keys::authenticate(store, &expired.key).await {
        Err(AuthError::Expired(name, at)) => {
            assert_eq!(
                (name.as_str(), at.as_str()),
                ("old", "2020-01-01T00:00:00.000Z")
            )
        }
        other => panic!("an expired key: {other:?}"),
    }
    // Refused keys are not recorded as used.
    let old = store.list_keys().await.expect("list");
    assert!(
        old.iter()
            .all(|k| k.name != "old" || k.last_used_at.is_none()),
        "{old:?}"
    );
}

pub(crate) async fn concurrent_key_creates_of_one_name_let_exactly_one_win(store: Arc<dyn Store>) {
    let barrier = Arc::new(tokio::sync::Barrier::new(4));
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
            tokio::spawn(async move {
                let new = keys::generate("ops", Grant::acting_for("ops", Role::Admin))
                    .expect("randomness");
                barrier.wait().await;
                store.create_key(new.stored).await
            })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        match task.await.expect("task ran") {
            Ok(_) => created += 1,
            Err(StoreError::KeyExists(name)) => assert_eq!(name, "ops"),
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(created, 1);
    assert_eq!(store.list_keys().await.expect("list").len(), 1);
}

pub(crate) async fn concurrent_imports_of_one_set_in_opposite_orders_both_succeed(
    store: Arc<dyn Store>,
) {
    let names: Vec<String> = (0..24).map(|i| format!("shared-{i:02}")).collect();
    for round in 0..4 {
        let batch = |who: &str| -> Vec<ImportItem> {
            names
                .iter()
                .map(|name| ImportItem {
                    snapshot: skill(name, &format!("{who} {round}"), "body"),
                    provenance: imported(name),
                })
                .collect()
        };
        let forward = batch("forward");
        let mut backward = batch("backward");
        backward.reverse();
        for report in imports_at_once(&store, [forward, backward]).await {
            assert_eq!(
                report.created.len() + report.updated.len() + report.unchanged.len(),
                names.len()
            );
        }
        // Two imports per round, each writing every skill (content differs between them).
        for name in &names {
            let revisions = store.history(name).await.expect("history").len();
            assert_eq!(revisions, 2 * round + 2, "{name}");
        }
    }
}

/// The reports of two imports of `batches` started at once, neither of which may fail.
async fn imports_at_once(
    store: &Arc<dyn Store>,
    batches: [Vec<ImportItem>; 2],
) -> Vec<ImportReport> {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let tasks: Vec<_> = batches
        .into_iter()
        .map(|items| {
            let (store, barrier) = (Arc::clone(store), Arc::clone(&barrier));
            tokio::spawn(async move {
                barrier.wait().await;
                store.import(items, by("ci", "import")).await
            })
        })
        .collect();
    let mut reports = Vec::new();
    for task in tasks {
        reports.push(task.await.expect("task ran").expect("neither import fails"));
    }
    reports
}

/// Two imports of different skills whose files have the same contents, met in opposite
/// orders: the files are stored once, in one order for every writer, so neither import waits
/// for the other while the other waits for it (on PostgreSQL, a deadlock that fails one).
pub(crate) async fn concurrent_imports_sharing_files_in_opposite_orders_both_succeed(
    store: Arc<dyn Store>,
) {
    const COUNT: usize = 24;
    for round in 0..4 {
        let content = |i: usize| format!("shared file {i} of round {round}\n").into_bytes();
        let batch = |side: &str| -> Vec<ImportItem> {
            (0..COUNT)
                .map(|i| {
                    let name = format!("{side}-{round}-{i:02}");
                    // The left side meets the contents in one order, the right in the other.
                    let file = content(if side == "left" { i } else { COUNT - 1 - i });
                    ImportItem {
                        snapshot: snapshot(
                            md(&name, "shares a file", "body"),
                            &[("references/shared.md", &file)],
                        ),
                        provenance: imported(&name),
                    }
                })
                .collect()
        };
        for report in imports_at_once(&store, [batch("left"), batch("right")]).await {
            assert_eq!(report.created.len(), COUNT);
        }
        for i in 0..COUNT {
            for (side, expected) in [("left", i), ("right", COUNT - 1 - i)] {
                let name = format!("{side}-{round}-{i:02}");
                let stored = store.get(&name, None).await.expect("get");
                assert_eq!(stored.snapshot.files[0].bytes, content(expected), "{name}");
            }
        }
    }
}

/// Three live skills (`alpha` at revision 2, `pdf-forms` with a text and a binary file, `zeta`)
/// and a deleted one.
pub(crate) async fn live_skills_and_a_deleted_one(store: &dyn Store) {
    store
        .create(pdf_forms(), Provenance::Api, by("a", "create"))
        .await
        .expect("create");
    for (name, description) in [("zeta", "last"), ("alpha", "first"), ("gone", "deleted")] {
        store
            .create(
                skill(name, description, "body"),
                imported(name),
                by("a", "create"),
            )
            .await
            .expect("create");
    }
    store
        .update(
            "alpha",
            1,
            skill("alpha", "first, again", "body"),
            by("a", "update"),
        )
        .await
        .expect("update");
    store
        .delete("gone", 1, by("a", "delete"))
        .await
        .expect("delete");
}

pub(crate) async fn current_skills_are_every_live_skill_as_get_reads_it(store: &dyn Store) {
    live_skills_and_a_deleted_one(store).await;
    let current = store.current_skills().await.expect("current skills");
    let names: Vec<&str> = current.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["alpha", "pdf-forms", "zeta"]);
    for skill in &current {
        assert_eq!(skill, &store.get(&skill.name, None).await.expect("get"));
    }
    assert_eq!(current[1].snapshot.files.len(), 2);
    assert_eq!(current[0].revision, 2);
}

/// The live skills' metadata, checked to be what their content says
/// ([`SkillMetadata::of`] the current skills), and the current skills.
pub(crate) async fn metadata_of_the_content(
    store: &dyn Store,
) -> (Vec<SkillMetadata>, Vec<StoredSkill>) {
    let metadata = store.current_metadata().await.expect("metadata");
    let current = store.current_skills().await.expect("current skills");
    let expected: Vec<SkillMetadata> = current.iter().map(SkillMetadata::of).collect();
    assert_eq!(metadata, expected);
    assert!(!metadata.is_empty());
    (metadata, current)
}

/// The metadata of the live skills is what `current_skills` reads but the body and the files'
/// bytes: each file's digest, size and whether it is text, as they are of its bytes, and the
/// frontmatter of `SKILL.md` with the digest and size of the whole; and the content of a
/// skill is read by name at a revision that is no longer current (what a server's content cache
/// asks for when its catalog is one revision behind).
pub(crate) async fn current_metadata_is_current_skills_without_the_bytes(store: &dyn Store) {
    live_skills_and_a_deleted_one(store).await;
    let (metadata, current) = metadata_of_the_content(store).await;
    let names: Vec<(&str, u64)> = metadata
        .iter()
        .map(|s| (s.name.as_str(), s.revision))
        .collect();
    assert_eq!(names, [("alpha", 2), ("pdf-forms", 1), ("zeta", 1)]);
    let fields: &[u8] = b"# Fields\n\nEvery field has a name.\n";
    let files: Vec<(&str, &str, u64, bool)> = metadata[1]
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str(), f.size, f.text))
        .collect();
    let icon: &[u8] = &[0x89, b'P', b'N', b'G', 0, 0xff, 0xfe];
    assert_eq!(
        files,
        [
            ("assets/icon.png", sha256_hex(icon).as_str(), 7, false),
            (
                "references/fields.md",
                sha256_hex(fields).as_str(),
                fields.len() as u64,
                true
            ),
        ]
    );
    let pdf = &metadata[1];
    let text = &current[1].snapshot.skill_md;
    assert_eq!(
        pdf.frontmatter,
        "---\nname: pdf-forms\ndescription: Fill PDF forms\ntool_name: fill_pdf\n---\n",
        "the frontmatter, not the body"
    );
    assert_eq!(
        (pdf.skill_md.sha256.as_str(), pdf.skill_md.size),
        (sha256_hex(text.as_bytes()).as_str(), text.len() as u64)
    );
    let first = store.get("alpha", Some(1)).await.expect("revision 1");
    assert_eq!(first.revision, 1);
    assert_eq!(first.snapshot, skill("alpha", "first", "body"));
    assert_eq!(first.description, "first");
}
