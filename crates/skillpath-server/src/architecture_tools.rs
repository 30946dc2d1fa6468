//! The built-in tools of architecture packages (Golden Path's team model): `plan_architecture`
//! to decompose a repository into a package, `create_architecture` to store one,
//! `analyze_requirements` to choose among them, `list_architectures` and `get_architecture` to
//! read them. A package's skills are added with `create_skill` and its `package` field; its
//! documentation pages are resources (`package://<name>/<path>`).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;
use skillpath_core::package::Package;
use skillpath_core::package::spec::PackageSpec;

use crate::arguments::{Params, Whole};
use crate::catalog::{Addressed, CatalogSkill};
use crate::pagination::paginate;
use crate::review_tools::draft_saved;
use crate::state::SkillServer;
use crate::tool_error::ToolError;
use skillpath_app::Permit;
use skillpath_app::{Placement, Written};

/// `list_architectures`: a page of the packages.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ListArchitectures {
    cursor: Option<String>,
    limit: Option<Whole<1, 500>>,
}

impl Params for ListArchitectures {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let packages = server.app().architectures(permit)?;
        let limit = self.limit.map_or(100, Whole::count);
        let (items, next) = paginate(packages.iter(), self.cursor.as_deref(), limit, summary)?;
        Ok(pretty(&serde_json::json!({
            "architectures": items,
            "next_cursor": next,
        })))
    }
}

/// What a listing says of a package.
fn summary(package: &std::sync::Arc<CatalogSkill>) -> Value {
    let manifest = package.manifest.as_deref();
    serde_json::json!({
        "name": package.name,
        "description": package.description,
        "revision": package.revision,
        "layers": manifest.map(|m| m.layers.iter().map(|l| l.name.clone()).collect::<Vec<_>>()),
        "tech_stack": manifest.map(|m| &m.tech_stack),
        "options": manifest.map(|m| m.options.iter().map(|o| o.name.clone()).collect::<Vec<_>>()),
        "skills": manifest.map(Package::member_names),
    })
}

/// `get_architecture`: a package in full.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct GetArchitecture {
    #[schemars(description = "The package's name")]
    name: String,
}

impl Params for GetArchitecture {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let name = self.name.as_str();
        let (package, content) = server.app().architecture(permit, name).await?;
        let read = package
            .manifest
            .as_deref()
            .ok_or_else(|| ToolError::UnreadableManifest(name.to_owned()))?;
        let catalog = server.catalog_for(permit.caller());
        let manifest = &content.stored.snapshot.skill_md;
        let overview = &manifest[skillpath_core::frontmatter::head(manifest).len()..];
        let skills: Vec<Value> = read
            .member_names()
            .into_iter()
            .map(|member| {
                let tool = catalog
                    .tools()
                    .find(|(_, skill)| skill.name == member)
                    .map(|(tool, _)| tool.clone());
                serde_json::json!({
                    "name": member,
                    "folder": read.member_folder(&member),
                    "in_store": catalog.skill(&member).is_some(),
                    "tool": tool,
                })
            })
            .collect();
        let docs = package.doc_uris();
        Ok(pretty(&serde_json::json!({
            "name": package.name,
            "description": package.description,
            "revision": package.revision,
            "layers": read.layers.iter().map(|l| serde_json::json!({"name": l.name, "description": l.description})).collect::<Vec<_>>(),
            "tech_stack": read.tech_stack,
            "options": read.options,
            "skills": skills,
            "docs": docs,
            "overview": overview.trim(),
            "package_md": manifest,
        })))
    }
}

/// `analyze_requirements`: the packages that fit a project, ranked, each with why.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AnalyzeRequirements {
    #[schemars(
        description = "The project, the team and its constraints, in words: language, frameworks, databases, hosting, style"
    )]
    description: String,
    limit: Option<Whole<1, 50>>,
}

impl Params for AnalyzeRequirements {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let (fits, known) = server
            .app()
            .analyze_requirements(permit, &self.description)?;
        if fits.is_empty() {
            return Ok(format!(
                "No architecture package fits ({known} known). Plan one with `plan_architecture`, or list them with `list_architectures`."
            ));
        }
        let ranked: Vec<Value> = fits
            .iter()
            .take(self.limit.map_or(5, Whole::count))
            .map(|fit| {
                serde_json::json!({
                    "name": fit.package.name,
                    "description": fit.package.description,
                    "score": (fit.score * 1000.0).round() / 1000.0,
                    "why": fit.why,
                    "matched": fit.matched,
                    "skills": fit.package.member_names(),
                })
            })
            .collect();
        Ok(pretty(&serde_json::json!({ "fits": ranked })))
    }
}

/// `plan_architecture`: the guide for decomposing a repository into a package.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct PlanArchitecture {
    #[schemars(
        description = "The repository or architecture to capture: what it is, its stack, what a team builds in it again and again"
    )]
    repository: String,
}

impl Params for PlanArchitecture {
    async fn run(self, _: &SkillServer, _: &Permit) -> Result<String, ToolError> {
        Ok(plan(&self.repository))
    }
}

/// The guide `plan_architecture` returns.
fn plan(repository: &str) -> String {
    format!(
        "# Planning an architecture package for: {repository}

An architecture package is a named architecture (its layers and tech stack), documentation the
agent reads as context, configuration options whose values become template variables, and the
skills that implement it. Agents choose packages with `analyze_requirements`, so the description,
tech stack and layers are what it is found by.

## Discovery questions

Ask (or find in the repository) before writing anything:

1. What is built here again and again? (an entity, an endpoint, a repository, a message handler, a page)
2. Which layers or projects does one such change touch, in which order, and what may depend on what?
3. What is the tech stack, with versions that matter? (`.NET 8`, `EF Core 8`, `PostgreSQL`)
4. Which choices vary between teams or services but stay fixed within one? Those are the
   package's **options** (`endpointStyle: minimal-api|controller`, `idStrategy: guid|typed-id`),
   each with its allowed values and the default most teams use.
5. Which choices vary with every use? Those are a skill's own **arguments** (`entity_name`).
6. What must a newcomer read before the first change? Those are the **documentation pages**.
7. How does a reviewer check a change is right? Those are each skill's success criteria.

## The plan template

- `name`: kebab-case (`dotnet-clean-architecture`); `description`: what it is and when a project
  should choose it (one or two sentences naming the stack).
- `layers`: each `{{name, description}}`, in dependency order.
- `tech_stack`: the technologies, one per item.
- `options`: each `{{name, description, type, enum, default}}`; camelCase or snake_case names; a
  default is required. `endpointStyle` is `{{EndpointStyle}}` in every member's body, targets,
  templates and conditions (`Condition: EndpointStyle=controller`).
- `docs`: each `{{path, content}}`, markdown under `docs/` (architecture, conventions, testing).
- `overview`: the markdown after the manifest's frontmatter: the architecture on one screen.

## What to extract as templates

- Files a change creates whose shape is the same every time (an entity class, its EF
  configuration, a repository interface and its implementation, an endpoint): one template each,
  with the varying names as placeholders (`{{EntityName}}`) and option-dependent parts as blocks
  (`// {{{{#if EndpointStyle=controller}}}}` … `// {{{{/if}}}}`) or conditions on the template reference.
- Not what differs every time (business rules), nor files edited in place: describe those as steps.
- One skill per repeated change (`add-entity`, `add-repository`, `add-endpoint`), ordered as a
  feature is built; each says in its prerequisites which skill comes before it.

## Then

1. `create_architecture` with the package (no skills yet).
2. For each skill, `plan_skill`, `validate_skill`, then `create_skill` with `package` set to the
   package's name: its tool then takes the package's options too, and the package lists it.
3. `analyze_requirements` with a description of a project that should choose the package, to
   check it is found.
"
    )
}

/// `create_architecture`: a new package from structured data; its parameters are a
/// [`PackageSpec`].
#[derive(Deserialize)]
#[serde(transparent)]
pub(crate) struct CreateArchitecture(PackageSpec);

impl JsonSchema for CreateArchitecture {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CreateArchitecture".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        PackageSpec::json_schema(generator)
    }
}

impl Params for CreateArchitecture {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let stored = match server
            .app()
            .create_architecture(permit, &self.0, Placement::global())
            .await
        {
            Ok(Written::Stored(stored)) => stored,
            Ok(Written::Drafted(saved)) => return Ok(draft_saved(&saved)),
            Err(error) => return Err(error.into()),
        };
        Ok(format!(
            "Created the architecture package `{}` at revision {}. Add its skills with `create_skill` and `package: \"{}\"`; its documentation pages are the resources `package://{}/<path>`.",
            stored.name, stored.revision, stored.name, stored.name
        ))
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
