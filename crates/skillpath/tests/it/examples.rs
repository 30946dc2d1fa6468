//! The example skills in `examples/skills`: each one validates cleanly, and what `skillpath
//! render` and `skillpath schema` print for it is pinned by snapshots, for several argument sets
//! (defaults, every enum branch, booleans true and false). Runs the real binary from the
//! repository root, so the paths in its output are the ones a user types.

use serde_json::{Value, json};

use crate::support::{at_root, repo_root};

/// The folder of the example skills, relative to the repository root.
const EXAMPLES: &str = "examples/skills";

/// How one render is called: `--arg name=value` pairs and an optional `--args-json` object.
struct Call<'a> {
    /// The snapshot's name.
    snapshot: &'a str,
    /// The skill's folder name under `examples/skills`.
    skill: &'a str,
    args: &'a [(&'a str, &'a str)],
    json: Option<&'a str>,
}

/// The command line of `call`, as a user would type it (recorded in the snapshot).
fn command_line(call: &Call<'_>) -> Vec<String> {
    let mut line = vec!["render".to_owned(), format!("{EXAMPLES}/{}", call.skill)];
    for (name, value) in call.args {
        line.push("--arg".to_owned());
        line.push(format!("{name}={value}"));
    }
    if let Some(json) = call.json {
        line.push("--args-json".to_owned());
        line.push(json.to_owned());
    }
    line
}

/// Renders `call`, checks that it succeeded without warnings, snapshots the markdown and
/// returns it for further assertions.
fn render_snapshot(call: &Call<'_>) -> String {
    let line = command_line(call);
    let args: Vec<&str> = line.iter().map(String::as_str).collect();
    let run = at_root(&args);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "skillpath {args:?} failed:\n{}",
        run.stderr
    );
    let rendered = run.stdout;
    // What holds for every render, whatever the arguments.
    for leftover in ["**Condition:**", "{{#if", "{{/if}}"] {
        assert!(
            !rendered.contains(leftover),
            "`{leftover}` is left in the render of {args:?}"
        );
    }
    assert!(
        !rendered.starts_with("---"),
        "the render of {args:?} starts with frontmatter"
    );
    insta::with_settings!({
        description => format!("skillpath {}", shell_words(&line)),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(call.snapshot, rendered);
    });
    rendered
}

/// `line` joined for a shell, with single quotes where needed.
fn shell_words(line: &[String]) -> String {
    line.iter()
        .map(|word| {
            if word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=./".contains(c))
            {
                word.clone()
            } else {
                format!("'{word}'")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Snapshots `skillpath schema` of `skill` and returns it parsed.
fn schema_snapshot(skill: &str) -> Value {
    let path = format!("{EXAMPLES}/{skill}");
    let run = at_root(&["schema", &path]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "schema of {skill}"
    );
    insta::with_settings!({
        description => format!("skillpath schema {path}"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(format!("{skill}__schema"), run.stdout);
    });
    serde_json::from_str(&run.stdout).expect("the schema is JSON")
}

/// The folder names of every example skill.
fn example_skills() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join(EXAMPLES))
        .expect("read examples/skills")
        .map(|entry| entry.expect("a folder entry"))
        .filter(|entry| entry.path().join("SKILL.md").is_file())
        .map(|entry| entry.file_name().into_string().expect("a UTF-8 name"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_example_validates_without_errors_or_warnings() {
    let run = at_root(&["validate", "-r", EXAMPLES]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let skills = example_skills();
    assert!(skills.len() >= 5, "only {skills:?}");
    let summary = run.stdout.lines().last().expect("a summary line");
    let count = skills.len();
    assert!(
        summary.starts_with(&format!("{count} skills checked in ")),
        "{summary}"
    );
    assert!(
        summary.ends_with(&format!(
            "(spec mode): {count} valid, 0 invalid; 0 errors, 0 warnings"
        )),
        "{summary}"
    );
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert_eq!(run.stderr, "");
}

#[test]
fn every_example_is_named_after_its_folder_and_says_when_to_use_it() {
    for skill in example_skills() {
        let text =
            std::fs::read_to_string(repo_root().join(EXAMPLES).join(&skill).join("SKILL.md"))
                .expect("read SKILL.md");
        assert!(
            text.lines().any(|line| line == format!("name: {skill}")),
            "{skill}: `name` is not the folder name"
        );
        let description = text
            .lines()
            .find_map(|line| line.strip_prefix("description: "))
            .expect("a one-line description");
        assert!(
            description.contains("Use when "),
            "{skill}: the description does not say when to use it"
        );
    }
}

#[test]
fn add_caching_renders() {
    let skill = "add-caching";
    let defaults = render_snapshot(&Call {
        snapshot: "add-caching__defaults",
        skill,
        args: &[("service_name", "Orders")],
        json: None,
    });
    assert!(defaults.contains("services.AddStackExchangeRedisCache("));
    assert!(!defaults.contains("AddDistributedMemoryCache"));
    assert!(defaults.contains("**Target:** `src/Orders/Orders.csproj`"));
    assert!(defaults.contains("TimeSpan.FromMinutes(30)"));
    assert!(
        defaults.contains("\"Cache hit for {CacheKey}\""),
        "a brace that names no argument is left alone"
    );
    assert!(defaults.ends_with(
        "- `service_name` = `Orders`\n- `cache_provider` = `redis` (default)\n- `ttl_minutes` = `30` (default)\n"
    ));

    let memory = render_snapshot(&Call {
        snapshot: "add-caching__memory",
        skill,
        args: &[
            ("service_name", "Catalog"),
            ("cache_provider", "memory"),
            ("ttl_minutes", "5"),
        ],
        json: None,
    });
    assert!(memory.contains("services.AddDistributedMemoryCache();"));
    assert!(!memory.contains("AddStackExchangeRedisCache"));
    assert!(
        !memory.contains("RedisPackage.csproj"),
        "the redis-only reference is dropped"
    );
    assert!(memory.contains("TimeSpan.FromMinutes(5)"));

    let typed = render_snapshot(&Call {
        snapshot: "add-caching__redis_typed_json",
        skill,
        args: &[],
        json: Some(r#"{"service_name": "Billing", "cache_provider": "redis", "ttl_minutes": 90}"#),
    });
    assert!(typed.contains("TimeSpan.FromMinutes(90)"));
    assert!(typed.contains("- `cache_provider` = `redis`\n"));
}

#[test]
fn add_endpoint_renders() {
    let skill = "add-endpoint";
    let minimal = render_snapshot(&Call {
        snapshot: "add-endpoint__defaults_minimal_api",
        skill,
        args: &[("service_name", "Orders"), ("entity_name", "Order")],
        json: None,
    });
    assert!(minimal.contains("**Target:** `src/Orders/Api/Endpoints/OrderEndpoints.cs`"));
    assert!(!minimal.contains("Controller.cs"));
    assert!(minimal.contains("public Guid Id { get; set; }"));
    assert!(minimal.contains("(`{id:guid}`)"));
    assert!(minimal.contains("- `endpoint_style` = `minimal-api` (default)"));

    let controller = render_snapshot(&Call {
        snapshot: "add-endpoint__controller",
        skill,
        args: &[
            ("service_name", "Inventory"),
            ("entity_name", "StockItem"),
            ("endpoint_style", "controller"),
        ],
        json: None,
    });
    assert!(
        controller.contains("**Target:** `src/Inventory/Api/Controllers/StockItemController.cs`")
    );
    assert!(controller.contains("public sealed class StockItemController : ControllerBase"));
    assert!(!controller.contains("Endpoints.cs"));
    assert!(controller.contains("public string Name { get; set; } = string.Empty;"));
    // The DTO reference has no condition and is there in both styles.
    for rendered in [&minimal, &controller] {
        assert!(rendered.contains("**Template:** `templates/Dtos.cs`"));
    }
}

#[test]
fn add_fastapi_router_renders() {
    let skill = "add-fastapi-router";
    let defaults = render_snapshot(&Call {
        snapshot: "add-fastapi-router__defaults",
        skill,
        args: &[("resource_name", "orders"), ("model_name", "Order")],
        json: None,
    });
    assert!(!defaults.contains("import get_current_user"));
    assert!(!defaults.contains("Depends(get_current_user)"));
    assert!(!defaults.contains("test_requires_authentication"));
    assert!(defaults.contains("DEFAULT_PAGE_SIZE = 50\n"));
    assert!(defaults.contains("- `with_auth` = `false` (default)"));

    let with_auth = render_snapshot(&Call {
        snapshot: "add-fastapi-router__with_auth",
        skill,
        args: &[
            ("resource_name", "invoices"),
            ("model_name", "Invoice"),
            ("app_package", "billing"),
            ("with_auth", "true"),
            ("page_size", "25"),
        ],
        json: None,
    });
    assert!(with_auth.contains("from billing.auth import get_current_user\n"));
    assert!(with_auth.contains("    dependencies=[Depends(get_current_user)],\n"));
    assert!(with_auth.contains("async def test_requires_authentication()"));
    assert!(with_auth.contains("detail=f\"Invoice {item_id} not found\""));
    assert!(with_auth.contains("DEFAULT_PAGE_SIZE = 25\n"));

    let explicit_false = render_snapshot(&Call {
        snapshot: "add-fastapi-router__auth_false_typed_json",
        skill,
        args: &[],
        json: Some(
            r#"{"resource_name": "tickets", "model_name": "Ticket", "with_auth": false, "page_size": 10}"#,
        ),
    });
    assert!(!explicit_false.contains("import get_current_user"));
    assert!(!explicit_false.contains("Depends(get_current_user)"));
    assert!(explicit_false.contains("- `with_auth` = `false`\n"));
}

#[test]
fn add_github_workflow_renders() {
    let skill = "add-github-workflow";
    let defaults = render_snapshot(&Call {
        snapshot: "add-github-workflow__defaults",
        skill,
        args: &[("project_name", "orders-api")],
        json: None,
    });
    assert!(defaults.contains("**Target:** `global.json`"));
    assert!(!defaults.contains(".tool-versions"));
    assert!(
        !defaults.contains("deploy.yml"),
        "`DeployTarget!=none` is false"
    );
    assert!(
        defaults.contains("`.github/workflows/{WorkflowName}.yml` after the `workflow_name`"),
        "`\\{{WorkflowName}}` writes a literal `{{WorkflowName}}`"
    );
    assert!(defaults.contains("this run writes `.github/workflows/ci.yml`"));
    assert!(defaults.contains("group: ${{ github.workflow }}-${{ github.ref }}"));

    let node = render_snapshot(&Call {
        snapshot: "add-github-workflow__node_ghcr",
        skill,
        args: &[
            ("project_name", "web-shop"),
            ("stack", "node"),
            ("workflow_name", "build"),
            ("timeout_minutes", "20"),
            ("deploy_target", "ghcr"),
        ],
        json: None,
    });
    assert!(node.contains("**Target:** `.tool-versions`\n\n```\nnodejs 20.17.0\n```"));
    assert!(node.contains("**Target:** `.github/workflows/build.yml`"));
    assert!(node.contains("docker/build-push-action@v6"));
    assert!(!node.contains("azure/"));

    let python = render_snapshot(&Call {
        snapshot: "add-github-workflow__python_azure",
        skill,
        args: &[
            ("project_name", "reports"),
            ("stack", "python"),
            ("deploy_target", "azure-webapp"),
        ],
        json: None,
    });
    assert!(python.contains("python 3.12.6"));
    assert!(python.contains("          package: .\n"));
    assert!(!python.contains("dotnet publish"));

    let dotnet = render_snapshot(&Call {
        snapshot: "add-github-workflow__dotnet_azure",
        skill,
        args: &[
            ("project_name", "orders-api"),
            ("deploy_target", "azure-webapp"),
        ],
        json: None,
    });
    assert!(dotnet.contains("dotnet publish --configuration Release --output publish"));
    assert!(dotnet.contains("          package: publish\n"));
    assert!(!dotnet.contains("          package: .\n"));
}

#[test]
fn write_release_notes_renders_its_body() {
    let rendered = render_snapshot(&Call {
        snapshot: "write-release-notes__no_args",
        skill: "write-release-notes",
        args: &[],
        json: None,
    });
    assert!(rendered.starts_with("# Write release notes\n"));
    assert!(
        !rendered.contains("**Arguments:**"),
        "a skill without arguments has no arguments note"
    );
}

#[test]
fn every_example_has_a_schema() {
    for skill in example_skills() {
        let schema = schema_snapshot(&skill);
        assert_eq!(schema["type"], "object", "{skill}");
        assert_eq!(schema["additionalProperties"], false, "{skill}");
    }
}

#[test]
fn add_caching_schema_has_typed_enum_and_default() {
    let run = at_root(&["schema", "examples/skills/add-caching"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let schema: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let properties = &schema["properties"];
    assert_eq!(
        properties["cache_provider"]["enum"],
        json!(["redis", "memory"])
    );
    assert_eq!(properties["cache_provider"]["default"], json!("redis"));
    assert_eq!(properties["ttl_minutes"]["type"], json!("number"));
    assert_eq!(
        properties["ttl_minutes"]["default"],
        json!(30),
        "the default is the number 30, not the string \"30\""
    );
    assert!(properties["ttl_minutes"]["default"].is_number());
    assert_eq!(
        properties["service_name"]["description"],
        json!("Name of the target service (PascalCase)")
    );
    assert_eq!(schema["required"], json!(["service_name"]));
}

#[test]
fn bad_arguments_are_all_listed_and_nothing_is_rendered() {
    let run = at_root(&[
        "render",
        "examples/skills/add-caching",
        "--arg",
        "cache_provider=memcached",
        "--arg",
        "ttl_minutes=soon",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "", "nothing is rendered");
    assert_eq!(
        run.stderr,
        "error: the arguments have 3 problems:\n\
         - missing required argument `service_name`: Name of the target service (PascalCase)\n\
         - argument `cache_provider` must be one of `redis`, `memory`, got `memcached`\n\
         - argument `ttl_minutes` must be a number, got \"soon\"\n"
    );

    let run = at_root(&[
        "render",
        "examples/skills/add-endpoint",
        "--arg",
        "endpoint_style=grpc",
        "--arg",
        "entity_name=Order",
        "--arg",
        "colour=blue",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    for problem in [
        "error: the arguments have 3 problems:\n",
        "- unknown argument `colour`; the arguments are `service_name`, `entity_name`, `endpoint_style`\n",
        "- missing required argument `service_name`: Name of the target service (PascalCase), e.g. Orders\n",
        "- argument `endpoint_style` must be one of `controller`, `minimal-api`, got `grpc`\n",
    ] {
        assert!(
            run.stderr.contains(problem),
            "{problem:?} in\n{}",
            run.stderr
        );
    }

    let run = at_root(&[
        "render",
        "examples/skills/add-fastapi-router",
        "--arg",
        "resource_name=orders",
        "--arg",
        "model_name=Order",
        "--arg",
        "with_auth=yes",
        "--arg",
        "page_size=many",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: the arguments have 2 problems:\n\
         - argument `with_auth` must be a boolean, got \"yes\"\n\
         - argument `page_size` must be a number, got \"many\"\n"
    );

    let run = at_root(&[
        "render",
        "examples/skills/add-github-workflow",
        "--arg",
        "project_name=orders-api",
        "--arg",
        "stack=java",
        "--arg",
        "deploy_target=heroku",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: the arguments have 2 problems:\n\
         - argument `stack` must be one of `dotnet`, `node`, `python`, got `java`\n\
         - argument `deploy_target` must be one of `none`, `ghcr`, `azure-webapp`, got `heroku`\n"
    );
}

#[test]
fn add_github_workflow_is_served_under_its_tool_name() {
    let run = at_root(&["read-properties", "examples/skills/add-github-workflow"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let properties: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(properties["name"], json!("add-github-workflow"));
    assert_eq!(properties["tool_name"], json!("add_ci_workflow"));
}
