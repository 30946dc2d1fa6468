//! Rate limits on the registry protocol, per API key and, for requests without one, per client
//! address: a request past its limit is answered `429 Too Many Requests` with `Retry-After`
//! (whole seconds, what the `clawhub` CLI waits by) and the `RateLimit-*` and `X-RateLimit-*`
//! headers the protocol documents; every answer carries `RateLimit-Limit` and
//! `RateLimit-Remaining`. Loopback clients (a developer's own machine, the tests) are not
//! limited unless asked ([`RateLimits::loopback`]). The counters are GCRA buckets (`governor`),
//! each a few bytes, and those that are full again are dropped every [`FORGET_EVERY`] requests,
//! so the state stays bounded by the keys and addresses of the last minute.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use skillpath_app::Caller;

/// How many requests pass between two sweeps of the counters that are full again.
pub const FORGET_EVERY: u64 = 4096;

/// The limits (requests per minute; 0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Per API key.
    pub per_key: u32,
    /// Per client address, for requests without a key.
    pub per_address: u32,
    /// Whether loopback clients are limited too.
    pub loopback: bool,
}

impl Default for RateLimits {
    /// 1,200 a minute per key, 300 per address without one (ClawHub's own are 12,000 and 3,000
    /// for reads: a team's registry serves fewer people), loopback unlimited.
    fn default() -> Self {
        RateLimits {
            per_key: 1200,
            per_address: 300,
            loopback: false,
        }
    }
}

type Limiter =
    RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// The buckets, shared by every request of one server.
#[derive(Clone)]
pub(crate) struct Buckets {
    limits: RateLimits,
    per_key: Option<Arc<Limiter>>,
    per_address: Option<Arc<Limiter>>,
    seen: Arc<AtomicU64>,
}

impl Buckets {
    pub(crate) fn new(limits: RateLimits) -> Buckets {
        let limiter = |per_minute: u32| {
            NonZeroU32::new(per_minute).map(|n| {
                Arc::new(
                    RateLimiter::keyed(Quota::per_minute(n))
                        .with_middleware::<StateInformationMiddleware>(),
                )
            })
        };
        Buckets {
            limits,
            per_key: limiter(limits.per_key),
            per_address: limiter(limits.per_address),
            seen: Arc::default(),
        }
    }
}

/// Axum middleware: counts the request against its key's bucket (else its address's) and
/// answers 429 past the limit.
pub(crate) async fn limit(
    axum::extract::State(buckets): axum::extract::State<Buckets>,
    request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| *peer);
    if peer.is_none_or(|peer| peer.ip().is_loopback()) && !buckets.limits.loopback {
        return next.run(request).await;
    }
    let key = request
        .extensions()
        .get::<Caller>()
        .and_then(|caller| caller.key_id.clone());
    let (limiter, bucket, per_minute) = match key {
        Some(key) => (&buckets.per_key, key, buckets.limits.per_key),
        None => (
            &buckets.per_address,
            peer.map_or_else(String::new, |peer| peer.ip().to_string()),
            buckets.limits.per_address,
        ),
    };
    let Some(limiter) = limiter else {
        return next.run(request).await;
    };
    if buckets.seen.fetch_add(1, Ordering::Relaxed) % FORGET_EVERY == FORGET_EVERY - 1 {
        limiter.retain_recent();
    }
    match limiter.check_key(&bucket) {
        Ok(state) => {
            let mut response = next.run(request).await;
            let headers = response.headers_mut();
            headers.insert("ratelimit-limit", HeaderValue::from(per_minute));
            headers.insert(
                "ratelimit-remaining",
                HeaderValue::from(state.remaining_burst_capacity()),
            );
            response
        }
        Err(refused) => {
            let wait = refused.wait_time_from(DefaultClock::default().now());
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let reset_at = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |now| now.as_secs())
                + seconds;
            let mut response = (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!(
                    "Rate limit exceeded: {per_minute} requests a minute; try again in {seconds}s\n"
                ),
            )
                .into_response();
            let headers = response.headers_mut();
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            headers.insert("ratelimit-limit", HeaderValue::from(per_minute));
            headers.insert("ratelimit-remaining", HeaderValue::from(0));
            headers.insert("ratelimit-reset", HeaderValue::from(seconds));
            headers.insert("x-ratelimit-limit", HeaderValue::from(per_minute));
            headers.insert("x-ratelimit-remaining", HeaderValue::from(0));
            headers.insert("x-ratelimit-reset", HeaderValue::from(reset_at));
            response
        }
    }
}
