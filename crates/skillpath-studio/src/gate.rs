//! The gate every request of the studio passes before a page: the `Host` check (DNS
//! rebinding), who the visitor is (their cookie and session, see [`crate::visitor`]), the CSRF
//! token and origin of every write, sign-in where it is needed, and the security headers of
//! every answer. A form posted from another site has neither the cookie (SameSite) nor the
//! token, and one posted with a token that is not this cookie's is refused before any handler
//! runs.

use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use skillpath_app::AuthError;
use skillpath_server::{Caller, KeyPolicy};

use crate::encode::encode_query;
use crate::pages::common::{MessagePage, Studio, html_status};
use crate::pages::edit::MAX_EDITED_BYTES;
use crate::visitor::{Visitor, new_cookie};

/// The cookie's name.
const COOKIE: &str = "skillpath_studio";

/// The largest form a write may post (a `SKILL.md` being edited fits many times over).
pub(crate) const MAX_FORM_BYTES: usize = skillpath_server::MAX_REQUEST_BODY;

/// The Content-Security-Policy of every answer: the studio's own script, styles and images
/// only; no inline script or style, no plugin, no frame, forms posted only to the studio.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Axum middleware: every request of the studio passes through it, and its answer says how long
/// the server took (`Server-Timing: app;dur=<ms>`). It refuses a `Host` not
/// allowed (403), works out the [`Visitor`], refuses a write without its CSRF token or from
/// another origin (403), sends a visitor who must sign in to `/login`, and adds the cookie and
/// the security headers to the answer.
pub(crate) async fn visit(State(studio): State<Studio>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let mut response = answer(studio, request, next).await;
    // How long the server took, for the browser's developer tools and the benchmark.
    let took = started.elapsed().as_secs_f64() * 1000.0;
    if let Ok(timing) = HeaderValue::from_str(&format!("app;dur={took:.2}")) {
        response.headers_mut().insert("server-timing", timing);
    }
    response
}

async fn answer(studio: Studio, request: Request, next: Next) -> Response {
    if !host_allowed(request.headers(), &studio.allowed_hosts) {
        return secured(
            (
                StatusCode::FORBIDDEN,
                "this host name is not one this server answers to; add it with `--allowed-host`\n",
            )
                .into_response(),
        );
    }
    // A page opened from another site (a link in a chat, an identity provider's redirect)
    // comes without the SameSite=Strict cookie the browser may hold: it gets a page that loads
    // itself again from here, where the cookie comes along, and no cookie of its own (which
    // would replace that one).
    let reads = matches!(*request.method(), Method::GET | Method::HEAD);
    if reads && cross_site_navigation(request.headers()) {
        return secured(reload_here());
    }
    let cookie = cookie_of(request.headers());
    let fresh = cookie.is_none();
    let cookie = cookie.unwrap_or_else(new_cookie);
    let mut visitor = Visitor {
        csrf: studio.sessions.csrf(&cookie),
        cookie: cookie.clone(),
        caller: (studio.keys == KeyPolicy::Optional).then(Caller::local),
        signed_in: None,
        notice: None,
    };
    if let Some((key, with_provider)) = studio.sessions.key_of(&cookie) {
        match studio.server.app().authenticate(&key).await {
            Ok(caller) => {
                // A person signed in with their provider is shown by their handle; a key by
                // its name.
                visitor.signed_in = match with_provider {
                    true => caller.user.clone(),
                    false => caller.key.clone(),
                };
                visitor.caller = Some(caller);
            }
            Err(AuthError::Store(error)) => {
                return secured(
                    (
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!("cannot check your API key now: {error}\n"),
                    )
                        .into_response(),
                );
            }
            Err(error) => {
                studio.sessions.sign_out(&cookie);
                visitor.notice = Some(format!("You were signed out: {error}."));
            }
        }
    }
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD);
    let path = request.uri().path().to_owned();
    let public =
        path == "/login" || path.starts_with("/login/oidc/") || path.starts_with("/assets/");
    let request = if writes {
        match checked_write(&studio, &visitor, fresh, request).await {
            Ok(request) => request,
            Err(refusal) => return secured(refusal),
        }
    } else {
        request
    };
    if visitor.caller.is_none() && !public {
        return secured(must_sign_in(&request, writes));
    }
    let mut request = request;
    request.extensions_mut().insert(visitor);
    let mut response = next.run(request).await;
    if fresh {
        set_cookie(&mut response, &cookie, None);
    }
    secured(response)
}

/// Where a visitor who has not signed in goes: a page is sent to `/login` (and back after);
/// a write is refused.
fn must_sign_in(request: &Request, writes: bool) -> Response {
    if writes {
        return (
            StatusCode::UNAUTHORIZED,
            "sign in with an API key first (`/login`)\n",
        )
            .into_response();
    }
    let back = request
        .uri()
        .path_and_query()
        .map_or("/", |target| target.as_str());
    let mut url = String::from("/login?next=");
    url.push_str(&encode_query(back));
    Redirect::to(&url).into_response()
}

/// Whether `headers` are those of a page opened from another site: a `GET` or `HEAD` whose
/// `Sec-Fetch-Site` is `cross-site`, a navigation (`Sec-Fetch-Mode`) where the browser says.
fn cross_site_navigation(headers: &HeaderMap) -> bool {
    let said = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    said("sec-fetch-site") == Some("cross-site")
        && said("sec-fetch-mode").is_none_or(|mode| mode == "navigate")
}

/// A page that loads itself again from this site: a navigation from another site (a link in a
/// chat, an identity provider's redirect) comes without the SameSite=Strict cookie, which the
/// same URL loaded from here brings.
fn reload_here() -> Response {
    let mut response = Response::new(Body::from(
        "<!doctype html><meta http-equiv=\"refresh\" content=\"0\"><title>skillpath</title>",
    ));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// The request of a write, once it is known to come from a page of this studio: from this
/// origin (`Sec-Fetch-Site`, `Origin`), with this cookie's CSRF token in the `x-csrf-token`
/// header or the form's `csrf` field. The body is read (within [`MAX_FORM_BYTES`]: one that
/// announces more is refused before any of it is read) to find the field, and handed on
/// unchanged.
async fn checked_write(
    studio: &Studio,
    visitor: &Visitor,
    fresh: bool,
    request: Request,
) -> Result<Request, Response> {
    let cookie = visitor.cookie.as_str();
    let forbidden = |why: &str| (StatusCode::FORBIDDEN, format!("{why}\n")).into_response();
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site")
        && site != "same-origin"
        && site != "none"
    {
        return Err(forbidden(
            "refused: this form was sent from another site; open the studio and send it from there",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let same = origin
            .to_str()
            .ok()
            .zip(host)
            .is_some_and(|(origin, host)| {
                origin
                    .split_once("://")
                    .is_some_and(|(_, authority)| authority == host)
            });
        if !same {
            return Err(forbidden(
                "refused: this form was sent from another origin; open the studio and send it from there",
            ));
        }
    }
    if fresh {
        return Err(forbidden(
            "refused: this form came without the studio's cookie; reload the page and send it again",
        ));
    }
    let header_token = headers
        .get("x-csrf-token")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let announced = skillpath_server::announced_body_length(headers);
    if announced.is_some_and(|length| length > MAX_FORM_BYTES as u64) {
        return Err(too_large(studio, visitor, request.uri().path(), announced));
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
        .await
        .map_err(|_| too_large(studio, visitor, parts.uri.path(), None))?;
    let token = header_token.or_else(|| form_field(&bytes, "csrf"));
    if !token.is_some_and(|token| studio.sessions.csrf_matches(cookie, &token)) {
        return Err(forbidden(
            "refused: this form's security token is missing or is not this session's (it may be from before you signed in or out); reload the page and send it again",
        ));
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The page (413) for a form over [`MAX_FORM_BYTES`] sent to `path` (`announced` bytes, when
/// its length was announced): the limit named, and the way back to the page it came from
/// (the editor's, for a save).
fn too_large(studio: &Studio, visitor: &Visitor, path: &str, announced: Option<u64>) -> Response {
    let size = announced.map_or_else(String::new, |bytes| format!(" (this one is {bytes} bytes)"));
    let mut links = Vec::new();
    if path.ends_with("/edit") || path == "/new" {
        links.push(("Back to the form".to_owned(), path.to_owned()));
    }
    links.push(("Back to the catalog".to_owned(), "/".to_owned()));
    let heading = "Too large to send";
    let page = MessagePage {
        shell: studio.shell(visitor, heading.to_owned(), ""),
        heading: heading.to_owned(),
        text: format!(
            "Nothing was saved: a form of the studio holds at most 16 MiB ({MAX_FORM_BYTES} bytes){size}, and the editor saves at most 4 MiB ({} bytes) in one file. Import a folder for larger files (`skillpath import`).",
            MAX_EDITED_BYTES
        ),
        links,
    };
    html_status(StatusCode::PAYLOAD_TOO_LARGE, &page)
}

/// The value of the field `name` of a URL-encoded form (`None` when it has none). Only for
/// values that need no decoding (the CSRF token is hex).
fn form_field(body: &[u8], name: &str) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    text.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| value.to_owned())
    })
}

/// Whether the request's `Host` is one of `allowed` (an entry without a port allows any).
fn host_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = host_name(host);
    allowed.iter().any(|entry| {
        entry.eq_ignore_ascii_case(host) || (!has_port(entry) && entry.eq_ignore_ascii_case(name))
    })
}

/// `host` without its port (`[::1]:8080` → `::1`).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !name.contains(':') => {
            name
        }
        _ => host,
    }
}

fn has_port(entry: &str) -> bool {
    host_name(entry) != entry.trim_start_matches('[').trim_end_matches(']')
}

/// The studio's cookie in `headers`, when it looks like one this studio hands out.
fn cookie_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|value| value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Sets the studio's cookie to `value` on `response` (HttpOnly, SameSite=Strict, the whole
/// site); `max_age`, in seconds, ends it sooner than the browser session.
pub(crate) fn set_cookie(response: &mut Response, value: &str, max_age: Option<u64>) {
    let age = max_age.map_or(String::new(), |age| format!("; Max-Age={age}"));
    let cookie = format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict{age}");
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
}

/// `response` with the security headers every answer of the studio has; pages that hold a
/// session's token or content are not cached (assets set their own caching).
fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-security-policy", CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "same-origin"),
        ("x-frame-options", "DENY"),
        ("cross-origin-opener-policy", "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_with_and_without_ports() {
        let allowed = [
            "localhost".to_owned(),
            "example.com:8443".to_owned(),
            "::1".to_owned(),
        ];
        let check = |host: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_str(host).expect("a header"));
            host_allowed(&headers, &allowed)
        };
        assert!(check("localhost:7777"));
        assert!(check("LOCALHOST"));
        assert!(check("[::1]:80"));
        assert!(check("example.com:8443"));
        assert!(!check("example.com:80"));
        assert!(!check("evil.example:7777"));
        assert!(!check("localhost.evil.example"));
    }
}
