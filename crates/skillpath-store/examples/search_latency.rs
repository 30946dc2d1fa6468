//! Search latency of a store that already holds a catalog: the time of one `Store::search`,
//! what `search_skills` and `skillpath search` pay once the process is up. A benchmark, not a
//! test: `bench/run` imports a generated catalog with `skillpath import` first, then runs this
//! against the same database.
//!
//! ```text
//! cargo run --release -p skillpath-store --example search_latency -- --db PATH|URL [--rounds 20]
//! ```
//!
//! Every query of [`QUERIES`] (what people type when looking for a skill: a few words, some
//! common, some rare, one a prefix) runs once to warm up and then `--rounds` times; the output
//! is one JSON object with the p50, p99 and mean in milliseconds over every timed search, and
//! how many hits the queries found (so an empty store cannot pass for a fast one).
//!
//! The store follows changes first, as a server's does (`serve` always does): on PostgreSQL
//! that is what lets a search keep the counts its words are weighed by between searches, so
//! after the warm-up every query's words are counted already, as a server's frequent queries'
//! are; a word never searched for costs its count once.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use skillpath_store::location;

/// Queries as a user or an agent writes them.
const QUERIES: &[&str] = &[
    "fill pdf form",
    "create an MCP server",
    "react component testing",
    "write release notes",
    "add caching to a service",
    "kubernetes deployment",
    "database migration",
    "code review checklist",
    "generate unit tests",
    "python fastapi router",
    "docker compose",
    "security audit",
    "excel spreadsheet",
    "git commit message",
    "api documentation",
    "terraform",
    "brand guidelines",
    "slack message",
    "performance profiling",
    "typescr",
];

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    // `rank` is between 1 and `sorted.len()`, so the index is in bounds.
    sorted[rank.min(sorted.len()) - 1].as_secs_f64() * 1000.0
}

async fn run(db: &str, rounds: usize) -> Result<serde_json::Value, String> {
    let store = location::open(Some(db), &skillpath_store::ProjectView::shared())
        .await
        .map_err(|e| format!("cannot open `{db}`: {e}"))?;
    // PostgreSQL's first signal says its listener listens (SQLite's watch needs no start).
    if let Some(mut changes) = store.watch_changes()
        && store.following_changes() == Some(false)
    {
        let _ = tokio::time::timeout(Duration::from_secs(10), changes.recv()).await;
    }
    let mut hits = 0usize;
    for query in QUERIES {
        hits += store
            .search(query, 10)
            .await
            .map_err(|e| e.to_string())?
            .len();
    }
    let mut times = Vec::with_capacity(QUERIES.len() * rounds);
    for _ in 0..rounds {
        for query in QUERIES {
            let start = Instant::now();
            store.search(query, 10).await.map_err(|e| e.to_string())?;
            times.push(start.elapsed());
        }
    }
    times.sort();
    let total: Duration = times.iter().sum();
    Ok(serde_json::json!({
        "searches": times.len(),
        "hits_per_round": hits,
        "p50_ms": percentile(&times, 50.0),
        "p99_ms": percentile(&times, 99.0),
        "mean_ms": total.as_secs_f64() * 1000.0 / times.len().max(1) as f64,
    }))
}

fn main() -> ExitCode {
    let mut db = None;
    let mut rounds = 20usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--db", Some(value)) => db = Some(value),
            ("--rounds", Some(value)) => match value.parse() {
                Ok(n) if n > 0 => rounds = n,
                _ => {
                    eprintln!("error: `--rounds` takes a whole number of at least 1");
                    return ExitCode::from(2);
                }
            },
            _ => {
                eprintln!("usage: search_latency --db PATH|URL [--rounds N]");
                return ExitCode::from(2);
            }
        }
    }
    let Some(db) = db else {
        eprintln!("usage: search_latency --db PATH|URL [--rounds N]");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(run(&db, rounds)) {
        Ok(result) => {
            println!("{result}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}
