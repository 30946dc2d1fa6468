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
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        .user_agent(concat!("skillpath/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent
        .get(url)
        .call()
        .map_err(|e| SourceError::new(format!("cannot fetch `{url}`: {e}")))?;
    match response.status().as_u16() {
        200 => {}
        404 => return Ok(None),
        status => {
            return Err(SourceError::new(format!("`{url}` answered HTTP {status}")));
        }
    }
    response
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
        .map(Some)
        .map_err(|e| SourceError::new(format!("cannot read `{url}` (at most {limit} bytes): {e}")))
}
