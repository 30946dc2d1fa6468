//! The studio over plain HTTP (the browser tests are `studio_browser.rs`): what protects its
//! writes (the session cookie, the CSRF token, the origin and `Host` checks), sign-in with API
//! keys and the roles behind it, and the security headers, against `skillpath serve --http`.

use std::path::Path;

use crate::support::{HttpServer, run_in, write_skill};

/// A browser's visit: the cookie the studio set and the CSRF token of its pages.
struct Visit {
    cookie: String,
    token: String,
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

fn status(response: &str) -> u16 {
    response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// The value of the studio's cookie that `response` sets.
fn set_cookie(response: &str) -> Option<String> {
    let value = header(response, "set-cookie")?;
    let pair = value.split(';').next()?;
    pair.strip_prefix("skillpath_studio=").map(str::to_owned)
}

fn token_of(page: &str) -> String {
    page.split("data-csrf=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a page with its CSRF token")
        .to_owned()
}

fn visit(server: &HttpServer, path: &str) -> Visit {
    let page = server.exchange("GET", path, &[], b"");
    assert_eq!(status(&page), 200, "{page}");
    Visit {
        cookie: set_cookie(&page).expect("a new visitor gets a cookie"),
        token: token_of(&page),
    }
}

/// `fields` URL-encoded.
fn form(fields: &[(&str, &str)]) -> String {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn post(
    server: &HttpServer,
    path: &str,
    cookie: Option<&str>,
    extra: &[(&str, &str)],
    body: &str,
) -> String {
    let cookie = cookie.map(|c| format!("skillpath_studio={c}"));
    let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
    if let Some(cookie) = &cookie {
        headers.push(("Cookie", cookie));
    }
    headers.extend_from_slice(extra);
    server.exchange("POST", path, &headers, body.as_bytes())
}

fn get(server: &HttpServer, path: &str, cookie: &str) -> String {
    let cookie = format!("skillpath_studio={cookie}");
    server.exchange("GET", path, &[("Cookie", &cookie)], b"")
}

/// A server on the skills of `skills`, imported into its store first: the store owns them, so
/// no folder sync replaces what the studio writes (a synced folder's content would).
fn serve_imported(work: &Path, skills: &Path, extra: &[&str]) -> HttpServer {
    let (code, _, stderr) = run_in(work, &["import", &skills.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    HttpServer::start(work, extra)
}

fn revisions(server: &HttpServer, cookie: &str, name: &str) -> usize {
    let page = get(server, &format!("/skills/{name}/history"), cookie);
    page.matches("type=\"radio\" name=\"to\"").count()
}

#[test]
fn a_write_needs_the_visitors_cookie_and_token_from_the_studio_itself() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let server = serve_imported(work.path(), &skills, &[]);
    let me = visit(&server, "/skills/notes/edit");
    let other = visit(&server, "/");
    let page = get(&server, "/skills/notes/edit", &me.cookie);
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
        let answer = post(&server, "/skills/notes/edit", cookie, &headers, &body);
        assert_eq!(status(&answer), 403, "{why}: {answer}");
        assert!(answer.contains(why), "{why}: {answer}");
    }
    assert_eq!(
        revisions(&server, &me.cookie, "notes"),
        1,
        "a refused write wrote nothing"
    );
    let saved = post(
        &server,
        "/skills/notes/edit",
        Some(&me.cookie),
        &[("Origin", &host), ("Sec-Fetch-Site", "same-origin")],
        &edit(&me.token),
    );
    assert_eq!(status(&saved), 303, "{saved}");
    assert_eq!(header(&saved, "location"), Some("/skills/notes/history"));
    let history = get(&server, "/skills/notes/history", &me.cookie);
    assert!(history.contains("edited over HTTP"), "{history}");
    assert_eq!(revisions(&server, &me.cookie, "notes"), 2);
    // The same save again is stale: nothing is written, and the page merges the two.
    let stale = post(
        &server,
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
    assert_eq!(revisions(&server, &me.cookie, "notes"), 2);
    // A file path that climbs out of the skill names no file of it.
    let climbing = get(
        &server,
        "/skills/notes/files/..%2F..%2Fstore.db",
        &me.cookie,
    );
    assert_eq!(status(&climbing), 404, "{climbing}");
    let missing = get(&server, "/skills/nothing-here", &me.cookie);
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
    let server = serve_imported(work.path(), &skills, &[]);
    let me = visit(&server, "/skills/notes/edit");
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
        post(&server, "/skills/notes/edit", Some(&me.cookie), &[], &body)
    };
    let three = skill_md(3 * 1024 * 1024);
    let saved = save(&three, "1");
    assert_eq!(status(&saved), 303, "{}", &saved[..saved.len().min(500)]);
    assert_eq!(revisions(&server, &me.cookie, "notes"), 2);
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
    assert_eq!(revisions(&server, &me.cookie, "notes"), 2);
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
    assert_eq!(revisions(&server, &me.cookie, "notes"), 2);
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

/// Where a sign-in goes on to is a path of the studio as a browser resolves it: a `next` a
/// browser would take to another site (a tab or newline it strips, a backslash it reads as
/// `/`, `//`, a scheme, a path that resolves to `//host`) goes to the catalog instead, on the
/// sign-in page's form and after the sign-in; a path of the studio is kept.
#[test]
fn a_sign_in_goes_on_only_to_a_path_of_the_studio() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let reader = create_key(work.path(), "rita", "reader");
    let server = serve_imported(work.path(), &skills, &["--auth", "required"]);
    let sign_in = |next: &str| {
        let login = visit(&server, &format!("/login?{}", form(&[("next", next)])));
        let page = get(
            &server,
            &format!("/login?{}", form(&[("next", next)])),
            &login.cookie,
        );
        let field = page
            .split("name=\"next\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .map(str::to_owned);
        let signed_in = post(
            &server,
            "/login",
            Some(&login.cookie),
            &[],
            &form(&[("csrf", &login.token), ("key", &reader), ("next", next)]),
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

#[test]
fn a_team_studio_signs_visitors_in_with_keys_and_keeps_to_their_roles() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(&skills.join("notes"), "notes", "Takes notes.");
    let reader = create_key(work.path(), "rita", "reader");
    let server = serve_imported(work.path(), &skills, &["--auth", "required"]);
    // Nothing is shown before a sign-in, not even to a cookie made up by the visitor.
    let first = server.exchange("GET", "/skills/notes", &[], b"");
    assert_eq!(status(&first), 303, "{first}");
    assert_eq!(
        header(&first, "location"),
        Some("/login?next=/skills/notes")
    );
    let forged = get(&server, "/", &"ab".repeat(32));
    assert_eq!(status(&forged), 303, "{forged}");
    let login = visit(&server, "/login?next=/skills/notes");
    let wrong = post(
        &server,
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
        &server,
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
    let page = get(&server, "/skills/notes", &session);
    assert_eq!(status(&page), 200, "{page}");
    assert!(page.contains("rita · reader"), "{page}");
    assert!(
        !page.contains("/skills/notes/edit"),
        "a reader sees no edit control"
    );
    // The server refuses what the page does not offer.
    let token = token_of(&page);
    let refused = post(
        &server,
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
    let keys = get(&server, "/settings/keys", &session);
    assert_eq!(status(&keys), 403, "{keys}");
    // An author's save under review is a draft; made on a revision that moved on, it is
    // refused as stale, with the merge, and no draft is kept of it.
    let author = create_key(work.path(), "ann", "author");
    let login = visit(&server, "/login");
    let signed_in = post(
        &server,
        "/login",
        Some(&login.cookie),
        &[],
        &form(&[("csrf", &login.token), ("key", &author), ("next", "/")]),
    );
    let ann = set_cookie(&signed_in).expect("a session");
    let token = token_of(&get(&server, "/skills/notes/edit", &ann));
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
    let stale = post(&server, "/skills/notes/edit", Some(&ann), &[], &draft("1"));
    assert_eq!(status(&stale), 409, "{stale}");
    assert!(stale.contains("name=\"base\" value=\"2\""), "{stale}");
    let (_, queue, _) = run_in(work.path(), &["review", "--format", "json"]);
    assert!(!queue.contains("\"notes\""), "{queue}");
    let drafted = post(&server, "/skills/notes/edit", Some(&ann), &[], &draft("2"));
    assert_eq!(status(&drafted), 303, "{drafted}");
    assert_eq!(header(&drafted, "location"), Some("/review/notes"));
    let (_, queue, _) = run_in(work.path(), &["review", "--format", "json"]);
    assert!(queue.contains("\"notes\""), "{queue}");
    // A revoked key ends its sessions at their next request.
    let (code, _, stderr) = run_in(work.path(), &["keys", "revoke", "rita"]);
    assert_eq!(code, 0, "{stderr}");
    let after = get(&server, "/skills/notes", &session);
    assert_eq!(status(&after), 303, "{after}");
}
