//! Golden Path skills through the public API: the seed's `add-caching` parsed, validated, its
//! input schema, and rendering step by step (defaults and coercion, conditions, placeholders,
//! escapes, templates with `{{#if}}` blocks, missing templates, the arguments note).

use skillpath_core::Mode;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::render::{
    ArgProblem, Exceeded, RenderLimits, render, render_within,
};
use skillpath_core::golden_path::schema::input_schema;
use skillpath_core::load::{LoadOptions, load_skill_md};

use crate::support::{Sandbox, found, options};
use skillpath_core::bundle::SkillBundle;
use skillpath_core::validate::{validate, validate_dir};

const SEED: &str = "---
name: add-caching
description: Adds Redis caching to a service with cache-aside pattern. Use when a service needs a cache.
args:
  - name: service_name
    description: Name of the target service (PascalCase)
    required: true
  - name: cache_provider
    description: Cache backend to use
    required: false
    type: string
    enum: [redis, memory]
    default: redis
  - name: ttl_minutes
    description: Default cache TTL in minutes
    required: false
    type: number
    default: \"30\"
---

# Add Caching

Adds caching to {ServiceName}.

## Prerequisites

- [ ] Target service exists and builds
- [ ] Redis server is accessible (if using redis provider)

## Execution Steps

### Phase 1: Install packages

Add NuGet packages to the infrastructure project:
- `Microsoft.Extensions.Caching.StackExchangeRedis`

### Phase 2: Create cache service

**Template:** `CacheService.cs`
**Target:** `src/{ServiceName}/Infrastructure/Caching/{ServiceName}CacheService.cs`

Create the cache service implementation.

**Template:** `RedisOptions.cs`
**Target:** `src/{ServiceName}/RedisOptions.cs`
**Condition:** `CacheProvider=redis`

**Template:** `Missing.cs`
**Target:** `src/{ServiceName}/Missing.cs`
**Condition:** `CacheProvider=memory`

### Phase 3: Register in DI

Add the following to the DI registration, keeping `services.AddX(o => { o.Ttl = ... })` and \\{ServiceName} as written:

```cs
services.AddSingleton<{ServiceName}CacheService>(); // {NotAnArgument}
```

## Success Criteria

- [ ] Solution builds without errors
- [ ] Cache entries expire after {TtlMinutes} minutes
";

const CACHE_SERVICE: &str = "namespace {ServiceName}.Infrastructure.Caching;

public sealed class {ServiceName}CacheService
{
    // {{#if redis}}
    private readonly IDistributedCache _cache;
    // {{/if}}
    // {{#if memory}}
    private readonly IMemoryCache _cache;
    // {{/if}}
    // {{#if TtlMinutes=30}}
    // The default TTL.
    // {{/if}}
    public TimeSpan Ttl { get; } = TimeSpan.FromMinutes({TtlMinutes});
}
";

fn seed_sandbox() -> (Sandbox, std::path::PathBuf) {
    let sandbox = Sandbox::new();
    sandbox.file("add-caching/CacheService.cs", CACHE_SERVICE);
    sandbox.file(
        "add-caching/RedisOptions.cs",
        "public record RedisOptions(string Connection);\n",
    );
    let dir = sandbox.skill("add-caching", SEED);
    (sandbox, dir)
}

/// The skill folder `dir` read into memory, as `skillpath render` reads it.
fn read_folder(dir: &std::path::Path) -> SkillBundle {
    SkillBundle::read_folder(dir, &LoadOptions::default()).expect("reads the folder")
}

fn render_seed(args: serde_json::Value) -> Result<String, Vec<ArgProblem>> {
    let (_sandbox, dir) = seed_sandbox();
    let skill = load_skill_md(&dir, LoadOptions::default()).expect("loads");
    let (golden, _) = GoldenSkill::read(&skill);
    let given = args.as_object().cloned().unwrap_or_default();
    render(&skill, &golden, &read_folder(&dir), &given)
        .map(|r| r.markdown)
        .map_err(|e| e.problems)
}

#[test]
fn the_seed_parses_and_validates() {
    let (_sandbox, dir) = seed_sandbox();
    let report = validate_dir(&dir, &options(Mode::Spec, true));
    // `Missing.cs` is referenced but absent; `{NotAnArgument}` names no argument.
    let codes: Vec<_> = found(&report.diagnostics)
        .into_iter()
        .map(|(code, severity, line, _)| (code.as_str(), severity.as_str(), line))
        .collect();
    assert_eq!(
        codes,
        [
            ("template-missing", "error", 48),
            ("placeholder-unknown", "warning", 57)
        ]
    );
    let skill = report.skill_md.expect("parsed");
    let (golden, diagnostics) = GoldenSkill::read(&skill);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let names: Vec<&str> = golden.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["service_name", "cache_provider", "ttl_minutes"]);
    let phases: Vec<&str> = golden.body.sections[1]
        .phases
        .iter()
        .map(|p| p.name.value.as_str())
        .collect();
    assert_eq!(
        phases,
        ["Install packages", "Create cache service", "Register in DI"]
    );
    assert_eq!(golden.body.template_refs().count(), 3);
}

#[test]
fn the_seed_schema_has_an_enum_and_a_number_default() {
    let (_sandbox, dir) = seed_sandbox();
    let skill = load_skill_md(&dir, LoadOptions::default()).expect("loads");
    let (golden, _) = GoldenSkill::read(&skill);
    assert_eq!(
        input_schema(&golden.args),
        serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "service_name": {"type": "string", "description": "Name of the target service (PascalCase)"},
                "cache_provider": {"type": "string", "description": "Cache backend to use", "enum": ["redis", "memory"], "default": "redis"},
                "ttl_minutes": {"type": "number", "description": "Default cache TTL in minutes", "default": 30}
            },
            "required": ["service_name"],
            "additionalProperties": false
        })
    );
}

#[test]
fn the_seed_renders_with_defaults() {
    let markdown = render_seed(serde_json::json!({"service_name": "Orders"})).expect("renders");
    assert_eq!(
        markdown,
        "# Add Caching

Adds caching to Orders.

## Prerequisites

- [ ] Target service exists and builds
- [ ] Redis server is accessible (if using redis provider)

## Execution Steps

### Phase 1: Install packages

Add NuGet packages to the infrastructure project:
- `Microsoft.Extensions.Caching.StackExchangeRedis`

### Phase 2: Create cache service

**Template:** `CacheService.cs`
**Target:** `src/Orders/Infrastructure/Caching/OrdersCacheService.cs`

```csharp
namespace Orders.Infrastructure.Caching;

public sealed class OrdersCacheService
{
    private readonly IDistributedCache _cache;
    // The default TTL.
    public TimeSpan Ttl { get; } = TimeSpan.FromMinutes(30);
}
```

Create the cache service implementation.

**Template:** `RedisOptions.cs`
**Target:** `src/Orders/RedisOptions.cs`

```csharp
public record RedisOptions(string Connection);
```

### Phase 3: Register in DI

Add the following to the DI registration, keeping `services.AddX(o => { o.Ttl = ... })` and {ServiceName} as written:

```cs
services.AddSingleton<OrdersCacheService>(); // {NotAnArgument}
```

## Success Criteria

- [ ] Solution builds without errors
- [ ] Cache entries expire after 30 minutes

---

**Arguments:**
- `service_name` = `Orders`
- `cache_provider` = `redis` (default)
- `ttl_minutes` = `30` (default)
"
    );
}

#[test]
fn the_other_branch_drops_the_redis_reference_and_shows_a_missing_template() {
    let markdown =
        render_seed(serde_json::json!({"service_name": "Billing", "cache_provider": "memory", "ttl_minutes": 5})).expect("renders");
    assert!(!markdown.contains("RedisOptions"), "{markdown}");
    assert!(!markdown.contains("**Condition:**"), "{markdown}");
    assert!(markdown.contains("private readonly IMemoryCache _cache;"));
    assert!(!markdown.contains("IDistributedCache"));
    assert!(
        !markdown.contains("The default TTL"),
        "the `TtlMinutes=30` block is dropped for 5"
    );
    assert!(markdown.contains("TimeSpan.FromMinutes(5)"));
    assert!(markdown.contains(
        "**Template:** `Missing.cs`\n**Target:** `src/Billing/Missing.cs`\n\n> **Warning:** template `Missing.cs` was not found in the skill folder; its content is not shown.\n"
    ));
    assert!(markdown.ends_with(
        "- `service_name` = `Billing`\n- `cache_provider` = `memory`\n- `ttl_minutes` = `5`\n"
    ));
}

#[test]
fn rendering_is_deterministic() {
    let args = serde_json::json!({"service_name": "Orders", "ttl_minutes": "45"});
    assert_eq!(render_seed(args.clone()), render_seed(args));
}

#[test]
fn bad_arguments_render_nothing_and_list_every_problem() {
    let problems = render_seed(
        serde_json::json!({"cache_provider": "memcached", "ttl_minutes": "soon", "region": "eu"}),
    )
    .expect_err("invalid");
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "unknown argument `region`; the arguments are `service_name`, `cache_provider`, `ttl_minutes`",
            "missing required argument `service_name`: Name of the target service (PascalCase)",
            "argument `cache_provider` must be one of `redis`, `memory`, got `memcached`",
            "argument `ttl_minutes` must be a number, got \"soon\"",
        ]
    );
}

#[test]
fn an_optional_argument_without_value_leaves_its_placeholder() {
    let sandbox = Sandbox::new();
    let dir = sandbox.skill(
        "s",
        "---\nname: s\ndescription: Use when testing.\nargs:\n  - name: region\n    description: Region\n---\n# S\n\nDeploy to {Region}.\n",
    );
    let skill = load_skill_md(&dir, LoadOptions::default()).expect("loads");
    let (golden, _) = GoldenSkill::read(&skill);
    let rendered =
        render(&skill, &golden, &read_folder(&dir), &serde_json::Map::new()).expect("renders");
    assert_eq!(
        rendered.markdown,
        "# S\n\nDeploy to {Region}.\n\n---\n\n**Arguments:**\n- `region`: not given; `{Region}` is left as written\n"
    );
}

#[test]
fn golden_path_rules_apply_in_every_mode() {
    let text = "---\nname: s\ndescription: Use when testing.\nargs:\n  - name: Bad\n    description: x\n---\n# S\n";
    for mode in [Mode::Spec, Mode::Lenient, Mode::SkillsRef] {
        let sandbox = Sandbox::new();
        let dir = sandbox.skill("s", text);
        let report = validate_dir(&dir, &options(mode, false));
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code.as_str() == "arg-name-invalid" && d.is_error()),
            "{mode}: {:?}",
            report.diagnostics
        );
    }
}

#[test]
fn template_if_expressions_must_name_an_argument_or_an_allowed_value() {
    let sandbox = Sandbox::new();
    sandbox.file("s/A.cs", "// {{#if redsi}}\nx\n// {{/if}}\n// {{#if redis}}\ny\n// {{/if}}\n// {{#if Provider=memcached}}\nz\n// {{/if}}\n");
    let dir = sandbox.skill(
        "s",
        "---\nname: s\ndescription: Use when testing.\nargs:\n  - name: provider\n    description: x\n    enum: [redis, memory]\n---\n# S\n\n## Execution Steps\n\n### Phase 1: Write\n\n**Template:** `A.cs`\n**Target:** `src/A.cs`\n",
    );
    let report = validate_dir(&dir, &options(Mode::Spec, false));
    let messages: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                "condition-unknown-variable",
                "in template `A.cs`: condition `redsi` tests `redsi`, which is not an argument"
            ),
            (
                "condition-value-invalid",
                "in template `A.cs`: condition `Provider=memcached` compares `provider` with `memcached`, a value it can never have"
            ),
        ]
    );
}

/// A Golden Path skill with one argument `a` whose body is `body`, rendered with `value`
/// within `limits`.
fn render_a(body: &str, value: &str, limits: &RenderLimits) -> Result<String, Vec<ArgProblem>> {
    let sandbox = Sandbox::new();
    let dir = sandbox.skill(
        "many",
        format!(
            "---\nname: many\ndescription: Use when testing render limits.\nargs:\n  - name: a\n    required: true\n---\n\n{body}\n"
        ),
    );
    let skill = load_skill_md(&dir, LoadOptions::default()).expect("loads");
    let (golden, _) = GoldenSkill::read(&skill);
    let given = serde_json::json!({ "a": value })
        .as_object()
        .cloned()
        .unwrap_or_default();
    render_within(&skill, &golden, &read_folder(&dir), &given, limits)
        .map(|r| r.markdown)
        .map_err(|e| e.problems)
}

#[test]
fn an_argument_value_over_the_limit_is_refused_with_the_limit() {
    let limits = RenderLimits::default();
    let long = "x".repeat(limits.max_value_bytes + 1);
    let problems = render_a("Use {A}.", &long, &limits).expect_err("too long");
    assert_eq!(
        problems,
        [ArgProblem::TooLong {
            name: "a".to_owned(),
            length: limits.max_value_bytes + 1,
            limit: limits.max_value_bytes,
        }]
    );
    assert!(problems[0].to_string().contains("the limit is 65536 bytes"));
    let fits = "x".repeat(limits.max_value_bytes);
    assert!(render_a("Use {A}.", &fits, &limits).is_ok());
}

#[test]
fn a_million_placeholders_stop_at_the_output_limit_not_at_a_gigabyte() {
    // The hostile skill: a 3 MB body of `{A}`, a 1 KB value: 1 GB if rendered.
    let body = "{A}".repeat(1_000_000);
    let value = "v".repeat(1024);
    let limits = RenderLimits::default();
    let problems = render_a(&body, &value, &limits).expect_err("too large");
    assert_eq!(
        problems,
        [ArgProblem::TooLarge {
            exceeded: Exceeded::Output,
            limits
        }]
    );
    assert!(
        problems[0].to_string().contains("over 4194304 bytes"),
        "{}",
        problems[0]
    );
    // Short values: within the output, over the count of substitutions.
    let problems = render_a(&body, "v", &limits).expect_err("too many");
    assert_eq!(
        problems,
        [ArgProblem::TooLarge {
            exceeded: Exceeded::Substitutions,
            limits
        }]
    );
    // Limits are the caller's: a larger one renders it all.
    let generous = RenderLimits {
        max_substitutions: 1_000_000,
        ..limits
    };
    let rendered = render_a(&body, "v", &generous).expect("renders");
    assert!(rendered.starts_with(&"v".repeat(1_000_000)));
}

/// The seed as files in memory (`SKILL.md`, its two templates) shown at the folder's path: it
/// validates as the folder does, and renders the same, with templates found among its files.
#[test]
fn the_seed_in_memory_validates_and_renders_as_its_folder() {
    let (_sandbox, dir) = seed_sandbox();
    let mut bundle = SkillBundle::named(
        "add-caching",
        SEED,
        [
            (
                "CacheService.cs".to_owned(),
                CACHE_SERVICE.as_bytes().to_vec(),
            ),
            (
                "RedisOptions.cs".to_owned(),
                b"public record RedisOptions(string Connection);\n".to_vec(),
            ),
        ],
    );
    bundle.display_path = dir.clone();
    for mode in [Mode::SkillsRef, Mode::Spec, Mode::Lenient] {
        let on_disk = validate_dir(&dir, &options(mode, true));
        let in_memory = validate(&bundle, &options(mode, true));
        assert_eq!(
            format!("{:?}", in_memory.diagnostics),
            format!("{:?}", on_disk.diagnostics),
            "{mode}"
        );
    }
    let skill = load_skill_md(&dir, LoadOptions::default()).expect("loads");
    let (golden, _) = GoldenSkill::read(&skill);
    let given = serde_json::json!({"service_name": "Orders"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let from_folder = render(&skill, &golden, &read_folder(&dir), &given).expect("renders");
    let from_memory = render(&skill, &golden, &bundle, &given).expect("renders");
    assert_eq!(from_memory, from_folder);
    assert!(from_memory.markdown.contains("class OrdersCacheService"));
    // A template that is only on disk is not one of the bundle's files.
    bundle.files.remove("CacheService.cs");
    let report = validate(&bundle, &options(Mode::Spec, false));
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code.as_str() == "template-missing"
                && d.message.contains("`CacheService.cs`")),
        "{:?}",
        report.diagnostics
    );
}
