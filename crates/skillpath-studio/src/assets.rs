//! The studio's stylesheet and script, embedded in the binary. Pages name them with a digest of
//! their content (`/assets/studio.css?v=…`), so they are cached for a year and a new build's
//! are fetched at once.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// An embedded file: its name under `/assets/`, type and content.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    content: &'static str,
}

const ASSETS: &[Asset] = &[
    Asset {
        name: "studio.css",
        content_type: "text/css; charset=utf-8",
        content: include_str!("../assets/studio.css"),
    },
    Asset {
        name: "studio.js",
        content_type: "text/javascript; charset=utf-8",
        content: include_str!("../assets/studio.js"),
    },
];

/// The URL of every asset, with its digest, by name.
static URLS: LazyLock<Vec<(&'static str, String)>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|asset| {
            let digest = Sha256::digest(asset.content.as_bytes());
            let version = crate::encode::hex(&digest[..8]);
            (asset.name, format!("/assets/{}?v={version}", asset.name))
        })
        .collect()
});

/// The URL pages use for the asset `name`.
pub(crate) fn url(name: &str) -> &'static str {
    URLS.iter()
        .find(|(asset, _)| *asset == name)
        .map_or("/assets/missing", |(_, url)| url.as_str())
}

/// `GET /assets/{name}`.
pub(crate) async fn serve(Path(name): Path<String>) -> Response {
    let Some(asset) = ASSETS.iter().find(|asset| asset.name == name) else {
        return (StatusCode::NOT_FOUND, "no such asset\n").into_response();
    };
    let mut response = asset.content.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    response
}
