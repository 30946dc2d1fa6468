//! Write throughput of the skill store: SQLite vs PostgreSQL, side by side in one run on the
//! same machine. A benchmark, not a test: it checks only that every write succeeds, and
//! measures. Each measurement runs on a fresh, empty store of each backend, in turn:
//!
//! 1. **creates**: `--skills` new skills (a 2–4 KB `SKILL.md` with `name`/`description`
//!    frontmatter and a markdown body, plus a small `references/notes.md`), split over C
//!    concurrent writers (tokio tasks sharing one store);
//! 2. **updates**: C skills, each updated by its own writer at the expected revision (never a
//!    conflict), `--skills` updates in all;
//! 3. **import**: one `import` of `--skills` new skills, in one transaction.
//!
//! For 1 and 2 it reports writes/s and the p50/p99 latency of one write, for 3 skills/s; each
//! number is the median over `--runs` runs. Ratios are PostgreSQL / SQLite: above 1 means
//! PostgreSQL does more writes/s, or takes longer per write. SQLite is in a temporary folder,
//! opened as the store opens it (WAL, `synchronous=FULL`); PostgreSQL is in a fresh schema per
//! measurement, dropped afterwards, also on failure or Ctrl-C.
//!
//! ```text
//! cargo run --release -p skillpath-store --example write_throughput -- \
//!     [--skills 1000] [--runs 3] [--writers 1,8,32] [--format markdown|json] [--postgres URL]
//! ```
//!
//! `--postgres` defaults to `$SKILLPATH_TEST_POSTGRES`, else
//! `postgres://postgres@127.0.0.1:5432/test`; its user needs `CREATE` on the database. An
//! unreachable server ends the benchmark with exit code 1, a bad option with exit code 2.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_model::{Change, ImportItem, Provenance, SkillFile, SkillSnapshot};
use skillpath_store::{PostgresStore, SqliteStore, Store};
use tokio::task::JoinSet;
use tokio_postgres::{Client, NoTls};

const USAGE: &str = "usage: write_throughput [--skills N] [--runs R] [--writers C1,C2,...] \
                     [--format markdown|json] [--postgres URL]";

struct Options {
    skills: usize,
    runs: usize,
    writers: Vec<usize>,
    json: bool,
    postgres: String,
}

fn count(key: &str, value: &str) -> Result<usize, String> {
    let n = value.parse::<usize>().ok().filter(|n| *n >= 1);
    n.ok_or_else(|| format!("`{key}` takes a whole number of at least 1, not `{value}`"))
}

/// The options, `None` for `--help`, or what is wrong with them.
fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        skills: 1000,
        runs: 3,
        writers: vec![1, 8, 32],
        json: false,
        postgres: std::env::var("SKILLPATH_TEST_POSTGRES")
            .ok()
            .filter(|url| !url.is_empty())
            .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned()),
    };
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            return Ok(None);
        }
        let (key, value) = match arg.split_once('=') {
            Some((key, value)) => (key.to_owned(), Some(value.to_owned())),
            None => (arg, None),
        };
        if !["--skills", "--runs", "--writers", "--postgres", "--format"].contains(&key.as_str()) {
            return Err(format!("unknown option `{key}`"));
        }
        let value = value.or_else(|| args.next());
        let value = value.ok_or_else(|| format!("`{key}` needs a value"))?;
        match key.as_str() {
            "--skills" => options.skills = count(&key, &value)?,
            "--runs" => options.runs = count(&key, &value)?,
            "--writers" => {
                options.writers = value
                    .split(',')
                    .map(|c| count(&key, c.trim()))
                    .collect::<Result<_, _>>()?;
            }
            "--format" => match value.as_str() {
                "json" => options.json = true,
                "markdown" => options.json = false,
                _ => return Err(format!("`--format` is `json` or `markdown`, not `{value}`")),
            },
            _ => options.postgres = value, // `--postgres`, the only key left
        }
    }
    if let Some(c) = options.writers.iter().find(|&&c| c > options.skills) {
        return Err(format!("{c} writers need at least {c} skills (`--skills`)"));
    }
    Ok(Some(options))
}

#[derive(Clone, Copy)]
enum Measurement {
    Creates(usize),
    Updates(usize),
    Import,
}

/// One measurement on one backend: writes (or skills) per second, then the p50 and p99
/// latency of one write in milliseconds (none for the import).
type Sample = [Option<f64>; 3];

const WORDS: &[&str] = &[
    "agent", "skill", "review", "test", "build", "deploy", "query", "schema", "index", "commit",
    "branch", "release", "config", "server", "client", "token", "cache", "metric", "trace",
    "error", "retry", "format", "parse", "render", "module", "function", "document", "example",
    "step", "check", "migrate", "request", "response", "pipeline", "workflow", "template",
];

/// `count` pseudo-random words (a linear congruential generator seeded by `seed`).
fn words(seed: &mut u64, count: usize) -> String {
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        out.push(WORDS[(*seed >> 33) as usize % WORDS.len()]);
    }
    out.join(" ")
}

/// A realistic skill `name`: a 2–4 KB `SKILL.md` and a small reference file; each `version`
/// has a different body, so that every update is new content.
fn skill(name: &str, seed: usize, version: u64) -> Result<SkillSnapshot, String> {
    let mut rng = (seed as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ version;
    let (topic, domain, intro) = (words(&mut rng, 5), words(&mut rng, 3), words(&mut rng, 20));
    let mut md = format!(
        "---\nname: {name}\ndescription: Use when you need to {topic} for {domain}.\n---\n\n\
         # {name}\n\nVersion {version}. {intro}.\n"
    );
    for section in 1..=30 {
        if md.len() >= 2048 + seed * 397 % 1700 {
            break;
        }
        let (title, text) = (words(&mut rng, 3), words(&mut rng, 40));
        let (point, code) = (words(&mut rng, 8), words(&mut rng, 2).replace(' ', "_"));
        md += &format!("\n## Step {section}: {title}\n\n{text}.\n\n- {point}\n- `{code}`\n");
    }
    let notes = format!("# Notes on {name}\n\n{}.\n", words(&mut rng, 30));
    let file = SkillFile {
        path: "references/notes.md".to_owned(),
        bytes: notes.into_bytes(),
    };
    SkillSnapshot::new(md, vec![file]).map_err(|error| error.to_string())
}

fn change() -> Change {
    Change {
        author: "bench".to_owned(),
        message: "write throughput".to_owned(),
    }
}

enum Write {
    Create(SkillSnapshot),
    Update(String, u64, SkillSnapshot),
}

/// The value at percentile `p` of sorted `latencies`, in milliseconds (nearest rank).
fn percentile(latencies: &[Duration], p: f64) -> Option<f64> {
    let rank = (p / 100.0 * latencies.len() as f64).ceil() as usize;
    latencies
        .get(rank.saturating_sub(1))
        .map(|d| d.as_secs_f64() * 1e3)
}

/// Runs each writer's writes in a task of its own, all at once; the first error aborts the rest
/// (dropping the `JoinSet` aborts its tasks).
async fn run_writers(store: Arc<dyn Store>, writers: Vec<Vec<Write>>) -> Result<Sample, String> {
    let total: usize = writers.iter().map(Vec::len).sum();
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    for writes in writers {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            let mut latencies = Vec::with_capacity(writes.len());
            for write in writes {
                let began = Instant::now();
                let written = match write {
                    Write::Create(new) => store.create(new, Provenance::Api, change()).await,
                    Write::Update(name, at, new) => store.update(&name, at, new, change()).await,
                };
                written.map_err(|error| error.to_string())?;
                latencies.push(began.elapsed());
            }
            Ok::<_, String>(latencies)
        });
    }
    let mut latencies = Vec::with_capacity(total);
    while let Some(joined) = tasks.join_next().await {
        latencies.extend(joined.map_err(|error| format!("a writer failed: {error}"))??);
    }
    let per_second = total as f64 / start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let (p50, p99) = (percentile(&latencies, 50.0), percentile(&latencies, 99.0));
    Ok([Some(per_second), p50, p99])
}

/// One measurement of `n` writes on `store`, which is empty. Content is built before the clock
/// starts; setup (the skills the updates change) is not measured.
async fn measure(store: Arc<dyn Store>, what: Measurement, n: usize) -> Result<Sample, String> {
    match what {
        Measurement::Creates(c) => {
            let mut writers: Vec<Vec<Write>> = (0..c).map(|_| Vec::new()).collect();
            for i in 0..n {
                // `i % c < c == writers.len()`, and `c >= 1` (checked by `parse_options`).
                writers[i % c].push(Write::Create(skill(&format!("bench-{i:05}"), i, 1)?));
            }
            run_writers(store, writers).await
        }
        Measurement::Updates(c) => {
            let mut writers = Vec::with_capacity(c);
            for w in 0..c {
                let name = format!("bench-writer-{w:03}");
                let first = skill(&name, w, 1)?;
                let created = store.create(first, Provenance::Api, change()).await;
                created.map_err(|error| error.to_string())?;
                let updates = (n / c + usize::from(w < n % c)) as u64;
                let writes = (1..=updates)
                    .map(|at| Ok(Write::Update(name.clone(), at, skill(&name, w, at + 1)?)))
                    .collect::<Result<Vec<_>, String>>()?;
                writers.push(writes);
            }
            run_writers(store, writers).await
        }
        Measurement::Import => {
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                let name = format!("bench-import-{i:05}");
                let path = format!("/bench/skills/{name}");
                let (root, scope) = ("/bench/skills".to_owned(), "folder".to_owned());
                let provenance = Provenance::Imported { path, root, scope };
                let snapshot = skill(&name, i, 1)?;
                items.push(ImportItem {
                    snapshot,
                    provenance,
                });
            }
            let start = Instant::now();
            let report = store.import(items, change()).await;
            let per_second = n as f64 / start.elapsed().as_secs_f64();
            let created = report.map_err(|error| error.to_string())?.created.len();
            if created != n {
                return Err(format!("the import created {created} skills, not {n}"));
            }
            Ok([Some(per_second), None, None])
        }
    }
}

async fn on_sqlite(what: Measurement, n: usize) -> Result<Sample, String> {
    let dir = tempfile::tempdir().map_err(|error| format!("no temporary folder: {error}"))?;
    let store = SqliteStore::open(&dir.path().join("skills.db")).map_err(|e| e.to_string())?;
    measure(Arc::new(store), what, n).await
}

/// The prefix of every schema this process creates, so that leftovers can be found.
fn schema_prefix() -> String {
    format!("bench_write_{}_", std::process::id())
}

/// The server's message, or the error with its causes (a `tokio_postgres::Error`'s own text is
/// only "db error" or "error connecting to server").
fn pg_error(error: tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return db.message().to_owned();
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text += &format!(": {cause}");
        source = cause.source();
    }
    text
}

async fn execute(admin: &Client, sql: &str) -> Result<(), String> {
    admin.batch_execute(sql).await.map_err(pg_error)
}

/// Runs one measurement in a fresh schema, and drops the schema whatever happened.
async fn on_postgres(admin: &Client, what: Measurement, opts: &Options) -> Result<Sample, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let schema = format!(
        "{}{}",
        schema_prefix(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    execute(admin, &format!("CREATE SCHEMA {schema}")).await?;
    let url = &opts.postgres;
    let separator = if url.contains('?') { '&' } else { '?' };
    let url = format!("{url}{separator}options=-c%20search_path%3D{schema}");
    let result = match PostgresStore::open(&url).await {
        Ok(store) => measure(Arc::new(store), what, opts.skills).await,
        Err(error) => Err(error.to_string()),
    };
    let dropped = execute(admin, &format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await;
    result.and_then(|sample| dropped.map(|()| sample))
}

/// Drops every schema this process created and has not dropped (after a failure or Ctrl-C).
async fn drop_leftovers(admin: &Client) -> Result<(), String> {
    let pattern = format!("{}%", schema_prefix());
    let sql = "SELECT nspname::text FROM pg_namespace WHERE nspname LIKE $1";
    for row in admin.query(sql, &[&pattern]).await.map_err(pg_error)? {
        let schema: String = row.try_get(0).map_err(pg_error)?;
        execute(admin, &format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await?;
    }
    Ok(())
}

/// The median of each number over `samples`.
fn medians(samples: &[Sample]) -> Sample {
    std::array::from_fn(|metric| {
        let mut values: Vec<f64> = samples.iter().filter_map(|sample| sample[metric]).collect();
        values.sort_by(f64::total_cmp);
        let mid = values.len() / 2;
        match values.len() % 2 {
            _ if values.is_empty() => None,
            1 => values.get(mid).copied(),
            // Even and not empty: `1 <= mid < len`.
            _ => Some((values[mid - 1] + values[mid]) / 2.0),
        }
    })
}

/// A row of the results: what was measured, the medians on SQLite and on PostgreSQL.
type Row = (Measurement, Sample, Sample);

/// Every measurement, `runs` times, SQLite then PostgreSQL each time; the medians.
async fn bench(options: &Options, admin: &Client) -> Result<Vec<Row>, String> {
    let creates = options.writers.iter().map(|&c| Measurement::Creates(c));
    let updates = options.writers.iter().map(|&c| Measurement::Updates(c));
    let plan: Vec<_> = creates
        .chain(updates)
        .chain([Measurement::Import])
        .collect();
    let mut samples = vec![(Vec::new(), Vec::new()); plan.len()];
    for run in 1..=options.runs {
        for (&what, (sqlite, postgres)) in plan.iter().zip(&mut samples) {
            let (name, writers) = label(what);
            eprintln!("run {run}/{}: {name}, {writers} writers", options.runs);
            let sample = on_sqlite(what, options.skills).await;
            sqlite.push(sample.map_err(|e| format!("SQLite: {e}"))?);
            let sample = on_postgres(admin, what, options).await;
            postgres.push(sample.map_err(|e| format!("PostgreSQL: {e}"))?);
        }
    }
    let rows = plan
        .iter()
        .zip(&samples)
        .map(|(&w, (s, p))| (w, medians(s), medians(p)));
    Ok(rows.collect())
}

/// What a row measures, and with how many writers.
fn label(what: Measurement) -> (&'static str, String) {
    match what {
        Measurement::Creates(c) => ("creates (writes/s)", c.to_string()),
        Measurement::Updates(c) => ("updates (writes/s)", c.to_string()),
        Measurement::Import => ("import (skills/s, one transaction)", "1".to_owned()),
    }
}

fn ratio(postgres: Option<f64>, sqlite: Option<f64>) -> Option<f64> {
    postgres.zip(sqlite).map(|(p, s)| p / s)
}

fn print_markdown(context: &str, rows: &[Row]) {
    println!("{context}\n");
    let head = ["/s", "p50 ms", "p99 ms"].map(|m| format!("SQLite {m} | PostgreSQL {m} | ratio"));
    println!("| measurement | writers | {} |", head.join(" | "));
    println!("|---|--:|{}", "--:|".repeat(9));
    for (what, sqlite, postgres) in rows {
        let (name, writers) = label(*what);
        let mut line = format!("| {name} | {writers} |");
        for (metric, (&s, &p)) in sqlite.iter().zip(postgres).enumerate() {
            let digits = if metric == 0 { 0 } else { 2 };
            for (value, digits) in [(s, digits), (p, digits), (ratio(p, s), 2)] {
                line += &value.map_or(" – |".to_owned(), |v| format!(" {v:.digits$} |"));
            }
        }
        println!("{line}");
    }
}

fn to_json(header: Value, rows: &[Row]) -> Value {
    let results: Vec<Value> = rows
        .iter()
        .map(|(what, s, p)| {
            let (name, writers) = label(*what);
            let metric =
                |i: usize| json!({"sqlite": s[i], "postgres": p[i], "ratio": ratio(p[i], s[i])});
            json!({"measurement": name, "writers": writers,
                   "per_second": metric(0), "p50_ms": metric(1), "p99_ms": metric(2)})
        })
        .collect();
    json!({"setup": header, "ratio": "PostgreSQL / SQLite", "results": results})
}

async fn run(options: Options) -> Result<(), String> {
    let config = options.postgres.parse::<tokio_postgres::Config>();
    let mut config = config
        .map_err(|error| format!("`--postgres`: not a PostgreSQL URL: {}", pg_error(error)))?;
    // An unreachable host fails in seconds, not at the system's TCP timeout.
    let connected = config
        .connect_timeout(Duration::from_secs(10))
        .connect(NoTls)
        .await;
    let (admin, connection) = connected.map_err(|error| {
        format!(
            "PostgreSQL is not reachable at `{}`: {}. Start it, or pass `--postgres URL` (or \
             set SKILLPATH_TEST_POSTGRES)",
            options.postgres,
            pg_error(error)
        )
    })?;
    let driver = tokio::spawn(connection);
    let settings = ["server_version", "fsync", "synchronous_commit"]
        .map(|name| format!("current_setting('{name}')"))
        .join(", ");
    let sql = format!("SELECT {settings}");
    let row = admin.query_one(&sql, &[]).await.map_err(pg_error)?;
    let setting = |i: usize| row.try_get::<_, String>(i).map_err(pg_error);
    let (version, fsync, commit) = (setting(0)?, setting(1)?, setting(2)?);
    let sqlite = format!("SQLite {} (WAL, synchronous=FULL)", rusqlite::version());
    let postgres = format!("PostgreSQL {version} (fsync={fsync}, synchronous_commit={commit})");
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let (skills, runs) = (options.skills, options.runs);
    let context = format!(
        "Write throughput: {skills} skills, median of {runs} runs, {cores} cores; {sqlite} vs \
         {postgres}; ratio = PostgreSQL / SQLite."
    );
    let header = json!({"skills": skills, "runs": runs, "cores": cores,
                        "sqlite": sqlite, "postgres": postgres});
    let result = tokio::select! {
        result = bench(&options, &admin) => result,
        Ok(()) = tokio::signal::ctrl_c() => Err("interrupted".to_owned()),
    };
    let cleanup = drop_leftovers(&admin).await;
    drop(admin);
    let _ = driver.await;
    cleanup.map_err(|error| format!("cannot drop the benchmark's schemas: {error}"))?;
    let rows = result?;
    if options.json {
        let text = serde_json::to_string_pretty(&to_json(header, &rows));
        println!("{}", text.map_err(|error| error.to_string())?);
    } else {
        print_markdown(&context, &rows);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    match parse_options(std::env::args().skip(1)) {
        Ok(None) => println!("{USAGE}"),
        Ok(Some(options)) => {
            if let Err(error) = run(options).await {
                eprintln!("write_throughput: {error}");
                return ExitCode::FAILURE;
            }
        }
        Err(error) => {
            eprintln!("write_throughput: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
