//! Micro-benchmarks of skillpath's hot paths, on real skills: parsing a `SKILL.md`, validating
//! skill folders in each mode, rendering and describing a Golden Path skill, and searching a
//! store that holds the whole shared corpus.
//!
//! # Running
//!
//! ```sh
//! cargo bench -p skillpath-bench --bench hot_paths                 # full run, about 2 minutes
//! cargo bench -p skillpath-bench --bench hot_paths -- --quick      # rough numbers, about 20 s
//! cargo bench -p skillpath-bench --bench hot_paths -- search       # only names matching `search`
//! cargo bench -p skillpath-bench --bench hot_paths -- --save-baseline before   # then, after a change:
//! cargo bench -p skillpath-bench --bench hot_paths -- --baseline before        # compare with it
//! ```
//!
//! Benchmark names are `group/input`: `parse/…`, `validate/…`, `render/…`, `schema/…`,
//! `search/…`. Results are kept in `target/criterion/` (no HTML reports or plots: criterion is
//! built without its default features to keep the build small).
//!
//! The search benchmarks and the median corpus skill need the shared skills corpus: it is at
//! `$SKILLPATH_CORPUS`, else at `../shared/corpus` next to the workspace. A missing corpus stops
//! the run with a message saying where it was looked for.
//!
//! Everything a benchmark needs (reading files, opening and filling the store) is prepared
//! before its timed part; each timed part is the call a user of the API makes.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use skillpath_core::Mode;
use skillpath_core::bundle::SkillBundle;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::render::render;
use skillpath_core::golden_path::schema::input_schema;
use skillpath_core::load::{LoadOptions, load_skill_md};
use skillpath_core::skill_md::{self, SkillMd};
use skillpath_core::validate::{ValidateOptions, validate_dir};
use skillpath_core::walk::{WalkLimits, find_skill_dirs};
use skillpath_folders::folder::read_skill_folder;
use skillpath_model::{Change, ImportItem, Provenance};
use skillpath_store::{SqliteStore, Store};

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// A typical skill: `gitops-workflow` from `wshobson/agents`, 5.9 KB, 332nd of the corpus's 669
/// `SKILL.md` files by size (the median is 5.98 KB). It is plain Agent Skills (a one-line
/// `name` and `description`, no Golden Path fields), valid in all three modes with no warnings,
/// and its folder has a `references/` folder, so validation does the same work a real skill
/// asks for. Chosen over the exact median (`powerbi-modeling`) for that.
const MEDIAN_SKILL: &str = "wshobson__agents/plugins/kubernetes-operations/skills/gitops-workflow";

/// The Golden Path example: typed arguments (a required string, an enum with a default, a
/// number), a structured body with three phases, three template files and a conditional
/// template. The skill `render` and `schema` are about.
const GOLDEN_SKILL: &str = "examples/skills/add-caching";

/// The search queries, one per kind of request (the top hits, checked with `skillpath search`):
/// a task whose words are spread over names, descriptions and bodies
/// (`playwright-automation-fill-in-form`, then `pdftk-server`, "fill PDF forms"); a task that a
/// whole family of skills matches almost equally (the ten `*-mcp-server-generator` and
/// `mcp-create-*` skills), the broadest of the three; and a topic with no single matching skill,
/// where dozens of React skills match some of the words.
const QUERIES: [&str; 3] = [
    "fill pdf form",
    "create an MCP server",
    "react component testing",
];

/// How many hits a search asks for: the CLI's and the MCP tool's default page.
const SEARCH_LIMIT: usize = 10;

/// The workspace root.
fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The shared skills corpus: `$SKILLPATH_CORPUS`, else `../shared/corpus` next to the
/// workspace. Panics with where it looked when it is not there.
fn corpus_root() -> PathBuf {
    let root = std::env::var_os("SKILLPATH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    assert!(
        root.is_dir(),
        "the skills corpus is missing: no folder at `{}` (set SKILLPATH_CORPUS to the corpus folder)",
        root.display()
    );
    root.canonicalize().expect("the corpus folder resolves")
}

/// A skill folder and the text of its `SKILL.md`.
struct SkillFile {
    dir: PathBuf,
    text: String,
}

impl SkillFile {
    fn read(dir: PathBuf) -> SkillFile {
        let path = dir.join("SKILL.md");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read `{}`: {error}", path.display()));
        SkillFile { dir, text }
    }

    fn median() -> SkillFile {
        SkillFile::read(corpus_root().join(MEDIAN_SKILL))
    }

    fn golden() -> SkillFile {
        SkillFile::read(workspace().join(GOLDEN_SKILL))
    }

    /// The path `parse` is given, as `load_skill_md` would give it.
    fn path(&self) -> PathBuf {
        self.dir.join("SKILL.md")
    }
}

/// Validation options as `skillpath validate --mode <mode>` uses them: lints on, except in
/// `skills-ref` mode, which has none.
fn options(mode: Mode) -> ValidateOptions {
    ValidateOptions {
        load: LoadOptions {
            mode,
            ..LoadOptions::default()
        },
        lints: mode != Mode::SkillsRef,
    }
}

/// A Golden Path skill read the way `skillpath render` reads it, checked to have no errors
/// (a benchmark of an error path would measure the wrong thing).
fn read_golden(dir: &Path) -> (SkillMd, GoldenSkill) {
    let skill = load_skill_md(dir, LoadOptions::default())
        .unwrap_or_else(|error| panic!("`{}` does not load: {error:?}", dir.display()));
    let (golden, diagnostics) = GoldenSkill::read(&skill);
    let errors: Vec<_> = skill
        .diagnostics
        .iter()
        .chain(&diagnostics)
        .filter(|d| d.is_error())
        .collect();
    assert!(
        errors.is_empty() && skill.frontmatter.is_some(),
        "`{}` has errors: {errors:?}",
        dir.display()
    );
    (skill, golden)
}

// ---------------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------------

/// `skill_md::parse` in spec mode (the default): frontmatter split, YAML tree with ranges,
/// body range. The text is cloned outside the timed part, since `parse` takes it by value.
fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (id, skill) in [
        ("median-corpus/gitops-workflow", SkillFile::median()),
        ("golden/add-caching", SkillFile::golden()),
    ] {
        let path = skill.path();
        let parsed = skill_md::parse(path.clone(), skill.text.clone(), Mode::Spec);
        assert!(
            parsed.frontmatter.is_some() && !parsed.diagnostics.iter().any(|d| d.is_error()),
            "`{}` does not parse cleanly: {:?}",
            path.display(),
            parsed.diagnostics
        );
        group.throughput(Throughput::Bytes(skill.text.len() as u64));
        group.bench_function(id, |b| {
            b.iter_batched(
                || (path.clone(), skill.text.clone()),
                |(path, text)| skill_md::parse(path, text, Mode::Spec),
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

/// `validate_dir`, everything about one folder in one call (finding and reading `SKILL.md`,
/// parsing, the mode's rules, lints): the median corpus skill in each mode, then the whole
/// `examples/skills` set (five Golden Path skills) one folder after another in spec mode, as
/// `skillpath validate examples/skills/*` judges them (without its parallelism).
fn validate(c: &mut Criterion) {
    let mut group = c.benchmark_group("validate");
    let median = SkillFile::median().dir;
    for mode in Mode::ALL {
        let options = options(mode);
        let report = validate_dir(&median, &options);
        assert!(
            report.is_valid(),
            "`{}` is not valid in {mode} mode: {:?}",
            median.display(),
            report.diagnostics
        );
        group.bench_function(format!("{mode}/gitops-workflow"), |b| {
            b.iter(|| validate_dir(black_box(&median), &options));
        });
    }

    let examples = workspace().join("examples/skills");
    let dirs: Vec<PathBuf> = find_skill_dirs(&examples, WalkLimits::default())
        .skills
        .into_iter()
        .map(|skill| skill.dir)
        .collect();
    assert!(
        dirs.len() >= 5,
        "only {} skills under `{}`",
        dirs.len(),
        examples.display()
    );
    let options = options(Mode::Spec);
    for dir in &dirs {
        let report = validate_dir(dir, &options);
        assert!(
            report.is_valid(),
            "`{}`: {:?}",
            dir.display(),
            report.diagnostics
        );
    }
    group.throughput(Throughput::Elements(dirs.len() as u64));
    group.bench_function("spec/examples-set", |b| {
        b.iter(|| {
            dirs.iter()
                .map(|dir| validate_dir(black_box(dir), &options))
                .collect::<Vec<_>>()
        });
    });
    group.finish();
}

/// The arguments `add-caching` is rendered with: every kind of argument given, and
/// `cache_provider=redis` so the conditional template (`RedisPackage.csproj`) is included.
/// `ttl_minutes` is a number, as an MCP client sends it.
fn add_caching_args() -> serde_json::Map<String, serde_json::Value> {
    let args = serde_json::json!({
        "service_name": "OrderService",
        "cache_provider": "redis",
        "ttl_minutes": 15,
    });
    args.as_object().cloned().expect("an object")
}

/// `render::render` of `add-caching`: arguments resolved and coerced, placeholders
/// substituted, three templates inlined. Twice: with templates read from the skill's folder
/// (`skillpath render`), and from the stored files in memory (the MCP server).
fn render_golden(c: &mut Criterion) {
    let mut group = c.benchmark_group("render");
    let dir = workspace().join(GOLDEN_SKILL);
    let (skill, golden) = read_golden(&dir);
    let given = add_caching_args();
    let snapshot = read_skill_folder(&dir)
        .unwrap_or_else(|error| panic!("cannot read `{}`: {error}", dir.display()));
    let files: HashMap<&str, &[u8]> = snapshot
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.bytes.as_slice()))
        .collect();

    let folder = SkillBundle::read_folder(&dir, &LoadOptions::default())
        .unwrap_or_else(|error| panic!("cannot read `{}`: {}", dir.display(), error.message));
    let from_folder = render(&skill, &golden, &folder, &given).expect("add-caching renders");
    let from_files = render(&skill, &golden, &files, &given).expect("add-caching renders");
    assert!(
        from_folder.warnings.is_empty() && from_folder == from_files,
        "rendering from the folder and from the stored files differ, or warn: {:?}",
        from_folder.warnings
    );
    assert!(
        from_folder.markdown.contains("OrderService")
            && from_folder.markdown.contains("StackExchangeRedis"),
        "the arguments and the Redis template are in the output"
    );

    group.bench_function("add-caching/folder", |b| {
        b.iter(|| render(&skill, &golden, &folder, black_box(&given)));
    });
    group.bench_function("add-caching/stored-files", |b| {
        b.iter(|| render(&skill, &golden, &files, black_box(&given)));
    });
    group.finish();
}

/// `schema::input_schema` of `add-caching`'s arguments: the JSON Schema the MCP server lists as
/// the skill's tool input, built for every `tools/list`.
fn schema(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema");
    let (_, golden) = read_golden(&workspace().join(GOLDEN_SKILL));
    assert_eq!(golden.args.len(), 3, "add-caching declares three arguments");
    group.bench_function("add-caching", |b| {
        b.iter(|| input_schema(black_box(&golden.args)));
    });
    group.finish();
}

/// A `SqliteStore` in a temp file with every skill folder of the corpus imported in one call,
/// as `skillpath store import` does. Gives the store and the folder that must outlive it.
fn corpus_store(runtime: &tokio::runtime::Runtime) -> (SqliteStore, tempfile::TempDir) {
    let root = corpus_root();
    let walk = find_skill_dirs(&root, WalkLimits::default());
    assert!(
        walk.skills.len() >= 600 && walk.skipped.is_empty(),
        "the corpus at `{}` has {} skill folders and skipped {:?}",
        root.display(),
        walk.skills.len(),
        walk.skipped
    );
    let items: Vec<ImportItem> = walk
        .skills
        .iter()
        .map(|skill| &skill.dir)
        .map(|dir| ImportItem {
            snapshot: read_skill_folder(dir)
                .unwrap_or_else(|error| panic!("cannot read `{}`: {error}", dir.display())),
            provenance: Provenance::Imported {
                path: dir.display().to_string(),
                root: root.display().to_string(),
                scope: "folder".to_owned(),
            },
        })
        .collect();
    let temp = tempfile::tempdir().expect("a temp folder");
    let store = SqliteStore::open(&temp.path().join("skills.db")).expect("the database opens");
    let change = Change {
        author: "bench".to_owned(),
        message: "the corpus".to_owned(),
    };
    let report = runtime
        .block_on(store.import(items, change))
        .expect("the corpus imports");
    assert!(
        report.created.len() >= 600,
        "only {} skills created",
        report.created.len()
    );
    (store, temp)
}

/// `Store::search` on SQLite (FTS5, weighted columns, snippets) over the ~670 corpus skills,
/// on a current-thread runtime like the CLI's store commands. Setup (reading the corpus,
/// importing it) is not timed.
fn search(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let (store, _temp) = corpus_store(&runtime);
    let mut group = c.benchmark_group("search");
    for query in QUERIES {
        let hits = runtime
            .block_on(store.search(query, SEARCH_LIMIT))
            .expect("search");
        assert!(!hits.is_empty(), "{query:?} finds nothing");
        group.bench_with_input(BenchmarkId::from_parameter(query), query, |b, query| {
            b.to_async(&runtime)
                .iter(|| store.search(black_box(query), SEARCH_LIMIT));
        });
    }
    group.finish();
}

criterion_group!(benches, parse, validate, render_golden, schema, search);
criterion_main!(benches);
