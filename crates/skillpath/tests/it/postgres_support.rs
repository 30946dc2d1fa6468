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

/// A transaction on the test server kept open, with the locks its statements took, until it is
/// ended (rolled back): for tests that hold a writer back.
pub(crate) struct OpenTransaction {
    end: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OpenTransaction {
    /// Begins a transaction on `url` and runs `sql` in it; returns once `sql` has run.
    pub(crate) fn begin(url: &str, sql: &str) -> OpenTransaction {
        let (began, has_begun) = std::sync::mpsc::channel();
        let (end, ended) = std::sync::mpsc::channel::<()>();
        let (url, sql) = (url.to_owned(), sql.to_owned());
        let thread = std::thread::spawn(move || {
            with_client(&url, async |client| {
                client
                    .batch_execute(&format!("BEGIN; {sql}"))
                    .await
                    .expect(&sql);
                let _ = began.send(());
                // Waited for off the runtime, so the connection goes on being driven.
                let _ = tokio::task::spawn_blocking(move || ended.recv()).await;
                client.batch_execute("ROLLBACK").await.expect("ROLLBACK");
            });
        });
        has_begun.recv().expect("the transaction began");
        OpenTransaction {
            end: Some(end),
            thread: Some(thread),
        }
    }

    /// Rolls the transaction back (its locks go with it) and waits until it has.
    pub(crate) fn end(mut self) {
        assert!(self.finish(), "the transaction could not be rolled back");
    }

    /// Ends the transaction: whether it was rolled back.
    fn finish(&mut self) -> bool {
        drop(self.end.take());
        self.thread
            .take()
            .is_none_or(|thread| thread.join().is_ok())
    }
}

impl Drop for OpenTransaction {
    fn drop(&mut self) {
        self.finish();
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

/// A PostgreSQL server of the test's own: its data folder in a temporary folder, on a free
/// port, run as the `postgres` user (`initdb` refuses root), so a test can stop, hang and
/// restart it without touching the machine's server. Stopped and removed when dropped.
pub(crate) struct OwnPostgres {
    /// The data and socket folder.
    dir: tempfile::TempDir,
    /// The port it listens on (127.0.0.1).
    pub(crate) port: u16,
}

/// Where the PostgreSQL programs are: `$SKILLPATH_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin`.
fn pg_bin(program: &str) -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("SKILLPATH_PG_BIN") {
        return std::path::PathBuf::from(dir).join(program);
    }
    let mut versions: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions.pop().map_or_else(
        || std::path::PathBuf::from(program),
        |dir| dir.join(program),
    )
}

/// Runs `program` with `args` as the `postgres` user; panics with its output when it fails.
fn as_postgres(program: &str, args: &[&str]) {
    let output = std::process::Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(pg_bin(program))
        .args(args)
        .output()
        .expect("runuser");
    assert!(
        output.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

impl OwnPostgres {
    /// A new cluster, started.
    pub(crate) fn start() -> OwnPostgres {
        let dir = tempfile::tempdir().expect("tempdir");
        let chown = std::process::Command::new("chown")
            .args(["postgres:postgres"])
            .arg(dir.path())
            .status()
            .expect("chown");
        assert!(chown.success());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .expect("a free port");
        let data = dir.path().join("data");
        let data = data.to_str().expect("utf-8");
        as_postgres(
            "initdb",
            &["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"],
        );
        let server = OwnPostgres { dir, port };
        server.resume_start();
        server
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// Starts the stopped server again (waits until it accepts connections).
    pub(crate) fn resume_start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").display().to_string();
        as_postgres(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
    }

    /// Stops the server (fast shutdown: connections are closed).
    pub(crate) fn stop(&self) {
        as_postgres("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    /// Sends `signal` (`-STOP`, `-CONT`) to the server and every process it started, so that
    /// a stopped server accepts connections (the kernel does) but answers nothing.
    pub(crate) fn signal_all(&self, signal: &str) {
        let pid_file = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid"))
            .expect("postmaster.pid");
        let postmaster = pid_file.lines().next().expect("the pid").trim().to_owned();
        let kill = |pids: &[String]| {
            let status = std::process::Command::new("kill")
                .arg(signal)
                .args(pids)
                .status()
                .expect("kill");
            assert!(status.success(), "kill {signal} {pids:?}");
        };
        // The postmaster first: stopped, it forks no backend between the scan and the signal.
        kill(std::slice::from_ref(&postmaster));
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid …`; comm may hold spaces, so read after the last `)`.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1));
            if parent == Some(postmaster.as_str()) {
                pids.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        // A backend may end between the scan and the signal: it needs none, so `kill`'s
        // failure for it is no failure of the test.
        if !pids.is_empty() {
            let _ = std::process::Command::new("kill")
                .arg(signal)
                .args(&pids)
                .status();
        }
    }

    /// The URL of its `postgres` database.
    pub(crate) fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let _ = std::process::Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
    }
}
