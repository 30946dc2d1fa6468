//! What the tests against a real PostgreSQL server share: where the server is
//! (`$SKILLPATH_TEST_POSTGRES`, default `postgres://postgres@127.0.0.1:5432/test`, trust auth),
//! a URL that puts the store in one schema, running SQL, and a fresh schema per test that is
//! dropped at its end. An unreachable server fails the test with the fix; nothing is skipped.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The test server's URL: `$SKILLPATH_TEST_POSTGRES`, else the local trust-auth server.
pub(crate) fn server_url() -> String {
    std::env::var("SKILLPATH_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// `url` with `schema` as the connection's `search_path`, so the store's tables live there.
pub(crate) fn url_in_schema(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}")
}

/// Runs `work` with a connection to `url`, failing the test with the fix when the server is
/// down.
fn with_client<T>(url: &str, work: impl AsyncFnOnce(&tokio_postgres::Client) -> T) -> T {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap_or_else(|error| {
                panic!(
                    "PostgreSQL is not reachable at `{url}`: {error}. The PostgreSQL tests need a \
                     server with trust auth (start it, or point SKILLPATH_TEST_POSTGRES at one)"
                )
            });
        let driver = tokio::spawn(connection);
        let value = work(&client).await;
        drop(client);
        let _ = driver.await;
        value
    })
}

/// Runs `sql` on the test server.
pub(crate) fn execute(url: &str, sql: &str) {
    with_client(url, async |client| {
        client.batch_execute(sql).await.expect(sql)
    });
}

/// A schema of its own, dropped (with everything in it) when dropped.
pub(crate) struct Schema {
    server: String,
    /// The schema's name: unique per process, tag and call.
    pub(crate) name: String,
}

impl Schema {
    /// Creates `r_<tag>_<pid>_<counter>_<nanos>` on the test server.
    pub(crate) fn create(tag: &str) -> Schema {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("r_{tag}_{}_{count}_{nanos}", std::process::id());
        let server = server_url();
        execute(&server, &format!("CREATE SCHEMA {name}"));
        Schema { server, name }
    }

    /// The test server's URL with this schema as the `search_path`.
    pub(crate) fn url(&self) -> String {
        url_in_schema(&self.server, &self.name)
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        execute(
            &self.server,
            &format!("DROP SCHEMA IF EXISTS {} CASCADE", self.name),
        );
    }
}

/// Runs `sql` (one statement returning one value) on `url` and returns the value.
pub(crate) fn query_value<T: for<'a> tokio_postgres::types::FromSql<'a>>(
    url: &str,
    sql: &str,
) -> T {
    with_client(url, async |client| {
        client.query_one(sql, &[]).await.expect(sql).get(0)
    })
}
