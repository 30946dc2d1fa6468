//! The HTTP client the protocol's requests go through: blocking `ureq` on a blocking thread,
//! bounded in time and size, following no redirect (a provider's endpoints answer where they
//! are; a redirect is a configuration to fix, not to follow with the client's secret).

use std::time::Duration;

use openidconnect::{HttpRequest, HttpResponse};

/// The most bytes of one answer read (a discovery document or a key set is a few KiB).
pub const MAX_ANSWER: u64 = 1024 * 1024;

/// Why a request to the provider did not get an answer.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HttpError(pub String);

/// Sends `request`, waiting at most `timeout` for the whole answer.
pub(crate) async fn send(
    request: HttpRequest,
    timeout: Duration,
) -> Result<HttpResponse, HttpError> {
    let url = request.uri().to_string();
    let answered = tokio::task::spawn_blocking(move || blocking(request, timeout))
        .await
        .map_err(|error| HttpError(format!("the request to `{url}` stopped: {error}")))?;
    answered.map_err(|why| HttpError(format!("`{url}` did not answer: {why}")))
}

fn blocking(request: HttpRequest, timeout: Duration) -> Result<HttpResponse, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("skillpath/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut response = agent.run(request).map_err(|error| match error {
        ureq::Error::Timeout(_) => format!("no answer within {} s", timeout.as_secs()),
        other => other.to_string(),
    })?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER)
        .read_to_vec()
        .map_err(|error| error.to_string())?;
    let mut answer = HttpResponse::new(body);
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    Ok(answer)
}
