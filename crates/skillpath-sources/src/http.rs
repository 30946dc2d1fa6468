//! Fetching over HTTP(S), for archives and discovery indexes: bounded in size and time, so a
//! slow or endless server cannot hold a command forever or fill its memory.

use std::time::Duration;

use crate::SourceError;

/// The most bytes of one response read.
pub const MAX_RESPONSE: u64 = 256 * 1024 * 1024;

/// The longest one request may take, connecting and reading included.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The body of a `GET url`, at most `limit` bytes; `Ok(None)` for a 404.
pub fn get(url: &str, limit: u64) -> Result<Option<Vec<u8>>, SourceError> {
    let fetched = fetch(url, None, limit)?;
    match fetched.status {
        200 => Ok(Some(fetched.body)),
        404 => Ok(None),
        status => Err(SourceError::new(format!("`{url}` answered HTTP {status}"))),
    }
}

/// What a `GET` answered: its status, the headers asked for, and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The response's headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body, at most the limit asked for.
    pub body: Vec<u8>,
}

impl Fetched {
    /// The value of the header `name` (lowercase), if the response has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The body as text, for a refusal's sentence (at most a line's worth).
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        let text = text.trim();
        text.chars().take(500).collect()
    }
}

/// `GET url` with `bearer` as its `Authorization`, whatever the status; the body at most
/// `limit` bytes.
pub fn fetch(url: &str, bearer: Option<&str>, limit: u64) -> Result<Fetched, SourceError> {
    let mut request = agent().get(url);
    if let Some(token) = bearer {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    answered(url, request.call(), limit)
}

/// `POST url` of the JSON `body`, with `bearer` as its `Authorization`, whatever the status;
/// the answer's body at most `limit` bytes.
pub fn post_json(
    url: &str,
    bearer: Option<&str>,
    body: &serde_json::Value,
    limit: u64,
) -> Result<Fetched, SourceError> {
    let mut request = agent().post(url).header("Content-Type", "application/json");
    if let Some(token) = bearer {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    answered(url, request.send(body.to_string().as_bytes()), limit)
}

/// The client every request goes through: bounded by [`TIMEOUT`], statuses answered rather
/// than errors.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .user_agent(concat!("skillpath/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// What `response` answered `url`, its body at most `limit` bytes.
fn answered(
    url: &str,
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    limit: u64,
) -> Result<Fetched, SourceError> {
    let mut response =
        response.map_err(|e| SourceError::new(format!("cannot fetch `{url}`: {e}")))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .filter_map(|(name, value)| {
            Some((
                name.as_str().to_ascii_lowercase(),
                value.to_str().ok()?.to_owned(),
            ))
        })
        .collect();
    let body = response
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
        .map_err(|e| {
            SourceError::new(format!("cannot read `{url}` (at most {limit} bytes): {e}"))
        })?;
    Ok(Fetched {
        status,
        headers,
        body,
    })
}
