//! The real-world skills corpus through the store: every skill folder imported in one call,
//! exported again byte for byte, and searched with realistic queries.
//!
//! The corpus is at `$SKILLPATH_CORPUS`, else at `../shared/corpus` next to the workspace. A
//! missing corpus fails these tests; they never skip.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use skillpath_core::walk::{WalkLimits, find_skill_dirs};
use skillpath_folders::folder::{read_folders, read_skill_folder, write_skill_folder};
use skillpath_folders::sources::FolderSources;
use skillpath_model::{FolderContent, ImportItem, Provenance, SkillSnapshot};
use skillpath_store::{ImportReport, ListFilter, Store};

use crate::support::{Backend, by, list_all};

/// The duplicate names of the corpus: the same skill name in two repositories.
const SHADOWED: [&str; 4] = [
    "brand-guidelines",
    "prompt-optimizer",
    "skill-creator",
    "webapp-testing",
];

use skillpath_test_support::corpus_dir as corpus_root;

/// Every skill folder of the corpus, read, in walk order.
fn read_corpus(root: &Path) -> Vec<(PathBuf, SkillSnapshot)> {
    let walk = find_skill_dirs(root, WalkLimits::default());
    assert!(
        walk.skipped.is_empty(),
        "the walk skipped folders: {:?}",
        walk.skipped
    );
    assert!(
        walk.skills.len() >= 600,
        "only {} skill folders under `{}`",
        walk.skills.len(),
        root.display()
    );
    walk.skills
        .into_iter()
        .map(|skill| {
            let dir = skill.dir;
            let snapshot = read_skill_folder(&dir)
                .unwrap_or_else(|error| panic!("cannot read `{}`: {error}", dir.display()));
            (dir, snapshot)
        })
        .collect()
}

/// An import reads each folder from what the walk that found it read (`FolderSources::locate`,
/// then `read_folders`): the same snapshots as reading each folder on its own.
#[test]
fn the_corpus_reads_alike_from_its_walk_and_folder_by_folder() {
    let root = corpus_root();
    let by_folder = read_corpus(&root);
    let located = FolderSources {
        discover: None,
        roots: vec![root.clone()],
    }
    .locate();
    assert!(located.skipped.is_empty(), "{:?}", located.skipped);
    assert!(located.folders.iter().all(|source| source.read.is_some()));
    let read = read_folders(located.folders, &[], &|_| {});
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let walked: Vec<(PathBuf, SkillSnapshot)> = read
        .items
        .into_iter()
        .map(|item| match item.content {
            FolderContent::Read { snapshot, .. } => {
                (PathBuf::from(item.provenance.folder()), snapshot)
            }
            FolderContent::Unchanged { name } => panic!("`{name}` was not read"),
        })
        .collect();
    assert_eq!(walked.len(), by_folder.len());
    for ((walked_dir, walked), (dir, snapshot)) in walked.iter().zip(&by_folder) {
        assert_eq!(walked_dir, dir);
        assert_eq!(walked, snapshot, "{}", dir.display());
    }
}

fn items(root: &Path, sources: &[(PathBuf, SkillSnapshot)]) -> Vec<ImportItem> {
    sources
        .iter()
        .map(|(dir, snapshot)| ImportItem {
            snapshot: snapshot.clone(),
            provenance: Provenance::Imported {
                path: dir.display().to_string(),
                root: root.display().to_string(),
                scope: "folder".to_owned(),
            },
        })
        .collect()
}

/// Reads and imports the whole corpus in one call; gives the sources, the report and how long
/// the import took.
async fn import_corpus(
    store: &dyn Store,
) -> (Vec<(PathBuf, SkillSnapshot)>, ImportReport, Duration) {
    let root = corpus_root();
    let sources = read_corpus(&root);
    let started = Instant::now();
    let report = store
        .import(items(&root, &sources), by("import", "the corpus"))
        .await
        .expect("the corpus imports");
    (sources, report, started.elapsed())
}

/// Every file under `dir`, as `/`-separated relative paths.
fn files_under(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = stack.pop() {
        for entry in std::fs::read_dir(&folder).expect("read the exported folder") {
            let entry = entry.expect("an entry");
            let name = entry.file_name().into_string().expect("UTF-8 name");
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if entry.file_type().expect("file type").is_dir() {
                stack.push((entry.path(), relative));
            } else {
                found.insert(relative);
            }
        }
    }
    found
}

pub(crate) async fn corpus_round_trips_through_import_and_export(backend: &Backend) {
    let store = backend.store();
    let (sources, report, import_time) = import_corpus(store).await;
    let file_count: usize = sources.iter().map(|(_, s)| s.files.len()).sum();
    let byte_count: u64 = sources.iter().map(|(_, s)| s.size()).sum();
    eprintln!(
        "corpus: imported {} skill folders ({} files besides SKILL.md, {:.1} MB) in {:.2?}",
        sources.len(),
        file_count,
        byte_count as f64 / 1e6,
        import_time
    );
    if let Some(size) = backend.size_on_disk() {
        eprintln!("corpus: the database takes {size} on disk");
    }

    // The report: everything created, except the duplicate names.
    assert!(
        report.updated.is_empty() && report.unchanged.is_empty(),
        "an empty store has nothing to update: {report:?}"
    );
    assert_eq!(report.created.len() + report.shadowed.len(), sources.len());
    let mut shadowed: Vec<&str> = report.shadowed.iter().map(|s| s.name.as_str()).collect();
    shadowed.sort_unstable();
    assert_eq!(shadowed, SHADOWED, "{:#?}", report.shadowed);
    let position = |path: &str| {
        sources
            .iter()
            .position(|(dir, _)| dir.display().to_string() == path)
    };
    for entry in &report.shadowed {
        let (left_out, kept) = (position(&entry.path), position(&entry.kept));
        assert!(
            left_out.is_some() && kept.is_some(),
            "{entry:?}: both are corpus folders"
        );
        assert!(
            kept < left_out,
            "{entry:?}: the first folder in walk order is kept"
        );
        assert_ne!(entry.path, entry.kept);
    }
    let created: BTreeSet<&str> = report.created.iter().map(String::as_str).collect();
    assert_eq!(
        created.len(),
        report.created.len(),
        "no name is created twice"
    );

    // Export every stored skill, one folder per name.
    let listed = list_all(store, ListFilter::default(), 100).await;
    let listed_names: Vec<&str> = listed.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        listed_names,
        created.iter().copied().collect::<Vec<_>>(),
        "every created skill is listed, in name order"
    );
    let out = tempfile::tempdir().expect("a temp folder");
    let by_dir: BTreeMap<String, &SkillSnapshot> = sources
        .iter()
        .map(|(dir, s)| (dir.display().to_string(), s))
        .collect();
    let shadowed_paths: BTreeSet<&str> = report.shadowed.iter().map(|s| s.path.as_str()).collect();
    let mut exported_sources = BTreeSet::new();
    let mut compared_files = 0usize;
    let mut compared_bytes = 0u64;
    for summary in &listed {
        let name = &summary.name;
        assert!(
            !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != "..",
            "`{name}` can name a folder"
        );
        let stored = store.get(name, None).await.expect("get");
        let target = out.path().join(name);
        write_skill_folder(&target, &stored.snapshot)
            .unwrap_or_else(|error| panic!("cannot export `{name}`: {error}"));

        let Provenance::Imported { path, scope, .. } = &stored.provenance else {
            panic!("`{name}` has provenance {:?}", stored.provenance)
        };
        assert_eq!(scope, "folder");
        assert!(
            !shadowed_paths.contains(path.as_str()),
            "`{name}` was exported from a shadowed folder `{path}`"
        );
        assert!(
            exported_sources.insert(path.clone()),
            "two skills from `{path}`"
        );
        let source_dir = Path::new(path);
        let source = by_dir
            .get(path)
            .unwrap_or_else(|| panic!("`{name}` comes from `{path}`, not a corpus folder"));
        assert_eq!(stored.content_hash, source.content_hash(), "`{name}`");
        assert!(
            !stored.description.trim().is_empty(),
            "`{name}`: every corpus skill has a description, also block scalars"
        );

        // Byte for byte: SKILL.md and every file the folder reader found, nothing else.
        let read = |path: &Path| {
            std::fs::read(path)
                .unwrap_or_else(|error| panic!("cannot read `{}`: {error}", path.display()))
        };
        let original = read(&source_dir.join("SKILL.md"));
        assert!(
            read(&target.join("SKILL.md")) == original,
            "`{name}`: SKILL.md differs from `{path}/SKILL.md`"
        );
        compared_bytes += original.len() as u64;
        for file in &source.files {
            let original = read(&source_dir.join(&file.path));
            assert!(
                read(&target.join(&file.path)) == original,
                "`{name}`: `{}` differs from the source",
                file.path
            );
            compared_files += 1;
            compared_bytes += original.len() as u64;
        }
        let mut expected: BTreeSet<String> = source.files.iter().map(|f| f.path.clone()).collect();
        expected.insert("SKILL.md".to_owned());
        assert_eq!(
            files_under(&target),
            expected,
            "`{name}`: the exported folder holds exactly the skill's files"
        );
    }
    let exported_folders = std::fs::read_dir(out.path()).expect("read").count();
    assert_eq!(exported_folders, sources.len() - report.shadowed.len());
    let not_exported: BTreeSet<&str> = by_dir
        .keys()
        .map(String::as_str)
        .filter(|dir| !exported_sources.contains(*dir))
        .collect();
    assert_eq!(
        not_exported, shadowed_paths,
        "only the shadowed folders are not exported"
    );
    eprintln!(
        "corpus: exported {exported_folders} skills and compared {} SKILL.md files and {compared_files} other files ({:.1} MB) byte for byte",
        listed.len(),
        compared_bytes as f64 / 1e6
    );

    // Importing the same corpus again changes nothing.
    let started = Instant::now();
    let root = corpus_root();
    let again = store
        .import(items(&root, &sources), by("import", "again"))
        .await
        .expect("re-import");
    eprintln!(
        "corpus: re-imported (all unchanged) in {:.2?}",
        started.elapsed()
    );
    assert_eq!(again.unchanged.len(), report.created.len());
    assert!(
        again.created.is_empty() && again.updated.is_empty(),
        "{again:?}"
    );
    assert_eq!(again.shadowed, report.shadowed);
    for name in report.created.iter().take(50) {
        assert_eq!(
            store.history(name).await.expect("history").len(),
            1,
            "`{name}`"
        );
    }
}

pub(crate) async fn corpus_search_finds_the_expected_skill(backend: &Backend) {
    let store = backend.store();
    let (_, report, _) = import_corpus(store).await;
    assert!(report.created.len() > 600);

    // (query, expected skill, best rank it must have). Each picked by reading the corpus.
    // Names and descriptions rank before bodies, by how much of the query they cover, a word
    // weighing more the fewer skills say it and twice in a name.
    let expectations: &[(&str, &str, usize)] = &[
        // The corpus has no dedicated PDF-form skill (Anthropic's `pdf` is not under a
        // permissive license); `pdftk-server`'s description says "fill PDF forms". Its name
        // matches "pdf"; `playwright-automation-fill-in-form` (web forms) matches "fill" and
        // "form" in its name and comes first, so top 3.
        ("fill a pdf form", "pdftk-server", 3),
        // `changelog-automation` is the only skill about changelogs.
        ("write a changelog", "changelog-automation", 1),
        // Sentry's `code-review` says "Use when reviewing pull requests"; `pr-dashboard` (lists
        // your pull requests) and `gh-review-requests` (review queue) are fair neighbours, so
        // top 3.
        ("review a pull request", "code-review", 3),
        // Creating an MCP server: the language-specific `*-mcp-server-generator` skills have
        // both "mcp" and "server" in their names and rank first; `python-mcp-server-generator`
        // is one of them ("Generate a complete MCP server project in Python").
        ("create an MCP server", "python-mcp-server-generator", 3),
        // `webapp-testing`: "testing local web applications using Playwright"; `ui-screenshots`
        // (screenshots of web apps with Playwright) is a close second, so top 3.
        ("test a web app with playwright", "webapp-testing", 3),
        // `slack-gif-creator`: "creating animated GIFs optimized for Slack".
        ("build a slack gif", "slack-gif-creator", 1),
        // Its description quotes the request: Use when asked to "write a commit message".
        ("write a commit message", "commit-message-storyteller", 1),
        // The name is the query.
        ("deploy to vercel", "deploy-to-vercel", 1),
        ("convert pdf to markdown", "convert-pdf-to-md", 1),
        ("systematic debugging", "systematic-debugging", 1),
        ("django performance review", "django-perf-review", 1),
        // `algorithmic-art`: "Creating algorithmic art using p5.js".
        ("algorithmic art with p5.js", "algorithmic-art", 1),
        (
            "postgresql query optimization",
            "postgresql-optimization",
            1,
        ),
        ("terraform module", "terraform-module-library", 1),
        // Sentry's `create-branch` ("Use when asked to \"create a branch\"") and
        // `git-flow-branch-creator` both fit, so top 3.
        ("create a git branch", "create-branch", 3),
        // `receiving-code-review`: "Use when receiving code review feedback"; `iterate-pr`
        // (address review feedback on a PR) fits too, so top 3.
        ("code review feedback", "receiving-code-review", 3),
        // A rare word decides: one skill says `excalidraw`, many say `flow` (and
        // `git-flow-branch-creator` in its name), so the query's words weigh by how few skills
        // say them.
        (
            "excalidraw flowchart of our signup flow",
            "excalidraw-diagram-generator",
            1,
        ),
        // `quantized-export` is the one skill that says `GGUF`; `finetuning-method-selection`
        // says `fine-tune` and `fine-tuning`, which several skills say.
        (
            "gguf for llama.cpp from my finished fine-tune",
            "quantized-export",
            1,
        ),
    ];
    let mut latencies = Vec::new();
    let mut misses = Vec::new();
    for (query, expected, best) in expectations {
        let started = Instant::now();
        let hits = store.search(query, 10).await.expect("search");
        latencies.push(started.elapsed());
        let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
        let rank = names
            .iter()
            .position(|name| name == expected)
            .map(|i| i + 1);
        eprintln!("corpus search {query:?}: `{expected}` at {rank:?} of {names:?}");
        if rank.is_none_or(|rank| rank > *best) {
            misses.push(format!("{query:?}: expected `{expected}` in the top {best}, got it at {rank:?} of {names:?}"));
        }
        assert!(
            hits.iter()
                .all(|h| h.snippet.contains('[') && h.snippet.contains(']')),
            "{query:?}: {hits:?}"
        );
    }
    // Latency over more queries, including ones with no expectation.
    for query in [
        "write unit tests",
        "kubernetes deployment",
        "design a REST API",
        "brand guidelines",
        "write a blog post",
        "react performance",
    ] {
        let started = Instant::now();
        store.search(query, 10).await.expect("search");
        latencies.push(started.elapsed());
    }
    latencies.sort_unstable();
    eprintln!(
        "corpus: median search latency {:.2?} over {} queries (fastest {:.2?}, slowest {:.2?})",
        latencies[latencies.len() / 2],
        latencies.len(),
        latencies[0],
        latencies[latencies.len() - 1]
    );
    assert!(
        misses.is_empty(),
        "search relevance:\n{}",
        misses.join("\n")
    );
}
