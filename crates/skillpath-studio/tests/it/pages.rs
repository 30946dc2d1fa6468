//! The studio's pages over plain HTTP: what protects its writes (the session cookie, the CSRF
//! token, the origin and `Host` checks), the security headers, stale saves, the documented body
//! limits, and where a sign-in goes on to.

use skillpath_server::KeyPolicy;
use skillpath_store::keys::Role;
use skillpath_test_support::http::{form, header, status};
use skillpath_test_support::studio::{get, post, revisions, visit};
use skillpath_test_support::write_skill;

use crate::served::Studio;

#[test]
fn a_write_needs_the_visitors_cookie_and_token_from_the_studio_itself() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let (server, _) = Studio::start(work.path(), &skills, KeyPolicy::Optional, &[]);
    let me = visit(&server.address, "/skills/notes/edit");
    let other = visit(&server.address, "/");
    let page = get(&server.address, "/skills/notes/edit", &me.cookie);
    assert!(page.contains("name=\"base\" value=\"1\""), "{page}");
    for (name, value) in [
        (
            "content-security-policy",
            "default-src 'none'; script-src 'self'",
        ),
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("cache-control", "no-store"),
    ] {
        assert!(
            header(&page, name).is_some_and(|v| v.starts_with(value)),
            "{name} in {page}"
        );
    }
    let edit = |token: &str| {
        form(&[
            ("csrf", token),
            ("file", "SKILL.md"),
            ("base", "1"),
            (
                "text",
                "---\nname: notes\ndescription: Takes notes, edited.\n---\n# notes\n",
            ),
            ("message", "edited over HTTP"),
        ])
    };
    let host = format!("http://{}", server.address);
    let refused = [
        (None, vec![], edit(&me.token), "without the studio's cookie"),
        (
            Some(me.cookie.as_str()),
            vec![],
            edit(""),
            "security token is missing",
        ),
        (
            Some(me.cookie.as_str()),
            vec![],
            edit(&other.token),
            "is not this session's",
        ),
        (
            Some(me.cookie.as_str()),
            vec![("Origin", "http://evil.example")],
            edit(&me.token),
            "from another origin",
        ),
        (
            Some(me.cookie.as_str()),
            vec![("Sec-Fetch-Site", "cross-site"), ("Origin", host.as_str())],
            edit(&me.token),
            "from another site",
        ),
        (
            Some(me.cookie.as_str()),
            vec![("Host", "evil.example:80")],
            edit(&me.token),
            "not one this server answers to",
        ),
    ];
    for (cookie, headers, body, why) in refused {
        let answer = post(
            &server.address,
            "/skills/notes/edit",
            cookie,
            &headers,
            &body,
        );
        assert_eq!(status(&answer), 403, "{why}: {answer}");
        assert!(answer.contains(why), "{why}: {answer}");
    }
    assert_eq!(
        revisions(&server.address, &me.cookie, "notes"),
        1,
        "a refused write wrote nothing"
    );
    let saved = post(
        &server.address,
        "/skills/notes/edit",
        Some(&me.cookie),
        &[("Origin", &host), ("Sec-Fetch-Site", "same-origin")],
        &edit(&me.token),
    );
    assert_eq!(status(&saved), 303, "{saved}");
    assert_eq!(header(&saved, "location"), Some("/skills/notes/history"));
    let history = get(&server.address, "/skills/notes/history", &me.cookie);
    assert!(history.contains("edited over HTTP"), "{history}");
    assert_eq!(revisions(&server.address, &me.cookie, "notes"), 2);
    // The same save again is stale: nothing is written, and the page merges the two.
    let stale = post(
        &server.address,
        "/skills/notes/edit",
        Some(&me.cookie),
        &[],
        &edit(&me.token),
    );
    assert_eq!(status(&stale), 409, "{stale}");
    assert!(
        stale.contains("Someone saved this skill while you edited it"),
        "{stale}"
    );
    assert!(stale.contains("name=\"base\" value=\"2\""), "{stale}");
    assert_eq!(revisions(&server.address, &me.cookie, "notes"), 2);
    // A file path that climbs out of the skill names no file of it.
    let climbing = get(
        &server.address,
        "/skills/notes/files/..%2F..%2Fstore.db",
        &me.cookie,
    );
    assert_eq!(status(&climbing), 404, "{climbing}");
    let missing = get(&server.address, "/skills/nothing-here", &me.cookie);
    assert_eq!(status(&missing), 404);
}

/// The studio's body limits are the documented ones (4 MiB a file, 16 MiB a form), whatever
/// axum's default: a 3 MiB file saves; a 5 MiB one is refused on the editor's page, its text
/// kept, naming the 4 MiB limit; a form announced over 16 MiB is refused before it is read,
/// with a page naming that limit and the way back to the editor; nothing refused is stored.
#[test]
fn studio_saves_take_the_documented_sizes_and_name_the_limit_they_pass() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let (server, _) = Studio::start(work.path(), &skills, KeyPolicy::Optional, &[]);
    let me = visit(&server.address, "/skills/notes/edit");
    let skill_md = |bytes: usize| {
        let head = "---\nname: notes\ndescription: Takes notes.\n---\n";
        let line = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012\n";
        format!("{head}{}", line.repeat((bytes - head.len()) / line.len()))
    };
    let save = |text: &str, base: &str| {
        let body = form(&[
            ("csrf", &me.token),
            ("file", "SKILL.md"),
            ("base", base),
            ("text", text),
        ]);
        post(
            &server.address,
            "/skills/notes/edit",
            Some(&me.cookie),
            &[],
            &body,
        )
    };
    let three = skill_md(3 * 1024 * 1024);
    let saved = save(&three, "1");
    assert_eq!(status(&saved), 303, "{}", &saved[..saved.len().min(500)]);
    assert_eq!(revisions(&server.address, &me.cookie, "notes"), 2);
    let five = skill_md(5 * 1024 * 1024);
    let refused = save(&five, "2");
    assert_eq!(
        status(&refused),
        413,
        "{}",
        &refused[..refused.len().min(500)]
    );
    assert_eq!(
        header(&refused, "content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(
        refused.contains("the editor saves at most 4 MiB (4194304 bytes) in one file"),
        "{}",
        &refused[..refused.len().min(2000)]
    );
    assert!(refused.contains("<textarea"), "the editor's page");
    assert!(
        refused.contains(&five[five.len() - 200..]),
        "the text is kept"
    );
    assert_eq!(revisions(&server.address, &me.cookie, "notes"), 2);
    // A browser announces a form's length: one over 16 MiB is refused on it.
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&server.address).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "POST /skills/notes/edit HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nCookie: skillpath_studio={}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\ncsrf={}&",
        server.address,
        me.cookie,
        17 * 1024 * 1024,
        me.token
    );
    stream.write_all(head.as_bytes()).expect("head");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    assert_eq!(status(&response), 413, "{response}");
    assert_eq!(
        header(&response, "content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(
        response.contains("a form of the studio holds at most 16 MiB (16777216 bytes) (this one is 17825792 bytes)"),
        "{response}"
    );
    assert!(
        response.contains("href=\"/skills/notes/edit\""),
        "the way back to the editor: {response}"
    );
    assert_eq!(revisions(&server.address, &me.cookie, "notes"), 2);
}

/// Where a sign-in goes on to is a path of the studio as a browser resolves it: a `next` a
/// browser would take to another site (a tab or newline it strips, a backslash it reads as
/// `/`, `//`, a scheme, a path that resolves to `//host`) goes to the catalog instead, on the
/// sign-in page's form and after the sign-in; a path of the studio is kept.
#[test]
fn a_sign_in_goes_on_only_to_a_path_of_the_studio() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let (server, keys) = Studio::start(
        work.path(),
        &skills,
        KeyPolicy::Required,
        &[("rita", Role::Reader)],
    );
    let reader = &keys[0];
    let sign_in = |next: &str| {
        let login = visit(
            &server.address,
            &format!("/login?{}", form(&[("next", next)])),
        );
        let page = get(
            &server.address,
            &format!("/login?{}", form(&[("next", next)])),
            &login.cookie,
        );
        let field = page
            .split("name=\"next\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(str::to_owned);
        let signed_in = post(
            &server.address,
            "/login",
            Some(&login.cookie),
            &[],
            &form(&[("csrf", &login.token), ("key", reader), ("next", next)]),
        );
        assert_eq!(status(&signed_in), 303, "{next:?}: {signed_in}");
        (field, header(&signed_in, "location").map(str::to_owned))
    };
    for hostile in [
        "/\t/evil.example/path",
        "/\n/evil.example/path",
        "/\r\n/evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "/\\/evil.example",
        "//evil.example/path",
        "///evil.example",
        "/.//evil.example",
        "https://evil.example/",
        "javascript:alert(1)",
        " /skills/notes",
    ] {
        let (field, location) = sign_in(hostile);
        assert_eq!(
            field.as_deref(),
            Some("/"),
            "{hostile:?} on the sign-in form"
        );
        assert_eq!(
            location.as_deref(),
            Some("/"),
            "{hostile:?} after the sign-in"
        );
    }
    let (field, location) = sign_in("/skills/notes?from=sign-in");
    assert_eq!(field.as_deref(), Some("/skills/notes?from=sign-in"));
    assert_eq!(location.as_deref(), Some("/skills/notes?from=sign-in"));
}
