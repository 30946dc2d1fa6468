//! The studio over plain HTTP against `skillpath serve --http`, as only several processes show
//! it: a team's sign-in with keys made by `skillpath keys`, an import by another process while
//! an author edits, the review queue as `skillpath review` reads it, and a key revoked by
//! `skillpath keys revoke` ending its sessions. The studio's own behaviour (the cookie, the CSRF
//! token, the origin and `Host` checks, the body limits, where a sign-in goes on to) is tested
//! in its crate (`crates/skillpath-studio/tests/it`); the browser tests are `studio_browser.rs`.

use std::path::Path;

use skillpath_test_support::http::{exchange, form, header, status};
use skillpath_test_support::studio::{get, post, set_cookie, token_of, visit};

use crate::support::{HttpServer, run_in, write_skill};

/// A server on the skills of `skills`, imported into its store first: the store owns them, so
/// no folder sync replaces what the studio writes (a synced folder's content would).
fn serve_imported(work: &Path, skills: &Path, extra: &[&str]) -> HttpServer {
    let (code, _, stderr) = run_in(work, &["import", &skills.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    HttpServer::start(work, extra)
}

fn create_key(work: &Path, name: &str, role: &str) -> String {
    let (code, stdout, stderr) = run_in(work, &["keys", "create", "--name", name, "--role", role]);
    assert_eq!(code, 0, "{stderr}");
    stdout
        .split_whitespace()
        .find(|word| word.starts_with("sp_"))
        .expect("the key is printed")
        .to_owned()
}

#[test]
fn a_team_studio_signs_visitors_in_with_keys_and_keeps_to_their_roles() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let reader = create_key(work.path(), "rita", "reader");
    let server = serve_imported(work.path(), &skills, &["--auth", "required"]);
    // Nothing is shown before a sign-in, not even to a cookie made up by the visitor.
    let first = exchange(&server.address, "GET", "/skills/notes", &[], b"");
    assert_eq!(status(&first), 303, "{first}");
    assert_eq!(
        header(&first, "location"),
        Some("/login?next=/skills/notes")
    );
    let forged = get(&server.address, "/", &"ab".repeat(32));
    assert_eq!(status(&forged), 303, "{forged}");
    let login = visit(&server.address, "/login?next=/skills/notes");
    let wrong = post(
        &server.address,
        "/login",
        Some(&login.cookie),
        &[],
        &form(&[
            ("csrf", &login.token),
            ("key", "sp_0000_nope"),
            ("next", "/"),
        ]),
    );
    assert_eq!(status(&wrong), 401, "{wrong}");
    assert!(wrong.contains("That key does not work"), "{wrong}");
    let signed_in = post(
        &server.address,
        "/login",
        Some(&login.cookie),
        &[],
        &form(&[
            ("csrf", &login.token),
            ("key", &reader),
            ("next", "/skills/notes"),
        ]),
    );
    assert_eq!(status(&signed_in), 303, "{signed_in}");
    assert_eq!(header(&signed_in, "location"), Some("/skills/notes"));
    let session = set_cookie(&signed_in).expect("a new cookie at sign-in");
    assert_ne!(session, login.cookie, "the cookie changes at sign-in");
    let page = get(&server.address, "/skills/notes", &session);
    assert_eq!(status(&page), 200, "{page}");
    assert!(page.contains("rita · reader"), "{page}");
    assert!(
        !page.contains("/skills/notes/edit"),
        "a reader sees no edit control"
    );
    // The server refuses what the page does not offer.
    let token = token_of(&page);
    let refused = post(
        &server.address,
        "/skills/notes/edit",
        Some(&session),
        &[],
        &form(&[
            ("csrf", &token),
            ("file", "SKILL.md"),
            ("base", "1"),
            ("text", "---\nname: notes\ndescription: Changed.\n---\n"),
        ]),
    );
    assert_eq!(status(&refused), 422, "{refused}");
    assert!(
        refused.contains("needs an API key with the `author` role"),
        "{refused}"
    );
    // A reader manages their own keys alone: no role to choose, no one else's key listed.
    let keys = get(&server.address, "/settings/keys", &session);
    assert_eq!(status(&keys), 200, "{keys}");
    assert!(keys.contains("Your API keys"), "{keys}");
    assert!(!keys.contains("name=\"role\""), "{keys}");
    assert!(
        !keys.contains(">ann<") && !keys.contains(">root<"),
        "{keys}"
    );
    // An author's save under review is a draft; made on a revision that moved on, it is
    // refused as stale, with the merge, and no draft is kept of it.
    let author = create_key(work.path(), "ann", "author");
    let login = visit(&server.address, "/login");
    let signed_in = post(
        &server.address,
        "/login",
        Some(&login.cookie),
        &[],
        &form(&[("csrf", &login.token), ("key", &author), ("next", "/")]),
    );
    let ann = set_cookie(&signed_in).expect("a session");
    let token = token_of(&get(&server.address, "/skills/notes/edit", &ann));
    write_skill(
        &skills.join("notes"),
        "notes",
        "Takes notes, changed meanwhile.",
    );
    let (code, _, stderr) = run_in(work.path(), &["import", &skills.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    let draft = |base: &str| {
        form(&[
            ("csrf", &token),
            ("file", "SKILL.md"),
            ("base", base),
            (
                "text",
                "---\nname: notes\ndescription: Takes notes, drafted.\n---\n",
            ),
        ])
    };
    let stale = post(
        &server.address,
        "/skills/notes/edit",
        Some(&ann),
        &[],
        &draft("1"),
    );
    assert_eq!(status(&stale), 409, "{stale}");
    assert!(stale.contains("name=\"base\" value=\"2\""), "{stale}");
    let (_, queue, _) = run_in(work.path(), &["review", "--format", "json"]);
    assert!(!queue.contains("\"notes\""), "{queue}");
    let drafted = post(
        &server.address,
        "/skills/notes/edit",
        Some(&ann),
        &[],
        &draft("2"),
    );
    assert_eq!(status(&drafted), 303, "{drafted}");
    assert_eq!(header(&drafted, "location"), Some("/review/notes"));
    let (_, queue, _) = run_in(work.path(), &["review", "--format", "json"]);
    assert!(queue.contains("\"notes\""), "{queue}");
    // A revoked key ends its sessions at their next request.
    let (code, _, stderr) = run_in(work.path(), &["keys", "revoke", "rita"]);
    assert_eq!(code, 0, "{stderr}");
    let after = get(&server.address, "/skills/notes", &session);
    assert_eq!(status(&after), 303, "{after}");
}
