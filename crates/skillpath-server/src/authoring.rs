//! Running the built-in tools: reading the catalog, and creating and changing skills. Every
//! failure the model can fix is an `isError` result that says what to do.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolResponse, JsonObject};
use serde_json::Value;
use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{ValidateOptions, validate};
use skillpath_core::{Mode, Severity};
use skillpath_store::{Change, ListFilter, Provenance, SkillFile, SkillSnapshot, StoreError};

use skillpath_store::keys::{self, Role};

use crate::auth::Caller;
use crate::builtin::plan;
use crate::catalog::CatalogSkill;
use crate::server::{SkillServer, error_result, skill_content, text_result};

/// Runs built-in tool `name` with `arguments` for `caller` (who may use it).
pub(crate) async fn call(
    server: &SkillServer,
    caller: &Caller,
    name: &str,
    arguments: &JsonObject,
) -> CallToolResponse {
    match run(server, caller, name, arguments).await {
        Ok(text) => text_result(text),
        Err(message) => error_result(message),
    }
}

fn text_arg<'a>(arguments: &'a JsonObject, key: &str) -> Result<&'a str, String> {
    arguments
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{key}` is required and must be a string"))
}

fn revision_arg(arguments: &JsonObject, key: &str) -> Result<u64, String> {
    arguments
        .get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("`{key}` is required and must be a revision number"))
}

fn store_error(error: StoreError) -> String {
    match error.hint() {
        Some(hint) => format!("{error}\nhint: {hint}"),
        None => error.to_string(),
    }
}

fn change(caller: &Caller, message: String) -> Change {
    Change {
        author: caller.author(),
        message,
    }
}

async fn run(
    server: &SkillServer,
    caller: &Caller,
    name: &str,
    arguments: &JsonObject,
) -> Result<String, String> {
    match name {
        "list_skills" => {
            let limit = arguments
                .get("limit")
                .and_then(Value::as_u64)
                .unwrap_or(100) as usize;
            let cursor = arguments
                .get("cursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let page = server
                .store()
                .list(ListFilter::default(), cursor, limit)
                .await
                .map_err(store_error)?;
            let items: Vec<Value> = page
                .items
                .iter()
                .map(|s| serde_json::json!({"name": s.name, "description": s.description, "tool_name": s.tool_name, "revision": s.revision}))
                .collect();
            // Folders the server could not load, and skills left out for another of their
            // name, are listed with every page, so an agent (or its user) learns why a skill
            // it expects is missing or is not the one it expects.
            let skipped: Vec<Value> = server
                .folder_report()
                .skipped
                .iter()
                .map(|folder| folder.to_json())
                .collect();
            let shadowed = server.shadowed().await.map_err(store_error)?;
            Ok(serde_json::to_string_pretty(&serde_json::json!({
                "skills": items,
                "next_cursor": page.next_cursor,
                "skipped_folders": skipped,
                "shadowed": shadowed,
            }))
            .unwrap_or_default())
        }
        "search_skills" => {
            let query = text_arg(arguments, "query")?;
            let limit = arguments.get("limit").and_then(Value::as_u64).unwrap_or(10) as usize;
            let hits = server
                .store()
                .search(query, limit)
                .await
                .map_err(store_error)?;
            if hits.is_empty() {
                return Ok(format!("No skill matches `{query}`."));
            }
            let mut text = String::new();
            for hit in hits {
                let _ = writeln!(
                    text,
                    "- {}: {}\n  match: {}",
                    hit.name, hit.description, hit.snippet
                );
            }
            text.push_str("\nLoad one with `load_skill`.");
            Ok(text)
        }
        "get_skill" => {
            let skill_name = text_arg(arguments, "name")?;
            let revision = arguments.get("revision").and_then(Value::as_u64);
            let skill = server
                .store()
                .get(skill_name, revision)
                .await
                .map_err(store_error)?;
            let files: Vec<Value> = skill
                .snapshot
                .files
                .iter()
                .map(|f| serde_json::json!({"path": f.path, "size": f.bytes.len(), "sha256": f.sha256()}))
                .collect();
            Ok(serde_json::to_string_pretty(&serde_json::json!({
                "name": skill.name,
                "revision": skill.revision,
                "deleted": skill.deleted,
                "skill_md": skill.snapshot.skill_md,
                "files": files,
            }))
            .unwrap_or_default())
        }
        "load_skill" => {
            let skill_name = text_arg(arguments, "name")?;
            let catalog = server.catalog();
            let skill = catalog.skill(skill_name).ok_or_else(|| {
                format!("no skill named `{skill_name}`; find skills with `search_skills` or `list_skills`")
            })?;
            let given = arguments
                .get("arguments")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let markdown = server
                .render_skill(skill, &given)
                .map_err(|error| error.to_string())?;
            Ok(skill_content(skill, &markdown))
        }
        "skill_history" => {
            let skill_name = text_arg(arguments, "name")?;
            let revisions = server
                .store()
                .history(skill_name)
                .await
                .map_err(store_error)?;
            Ok(serde_json::to_string_pretty(&revisions).unwrap_or_default())
        }
        "plan_skill" => Ok(plan(text_arg(arguments, "goal")?)),
        "validate_skill" => {
            let spec = parse_spec(arguments.get("skill").cloned().unwrap_or(Value::Null))?;
            let (_, report) = checked_snapshot(&spec)?;
            Ok(if report.is_empty() {
                "The skill is valid.".to_owned()
            } else {
                format!("The skill is valid, with warnings:\n{report}")
            })
        }
        "create_skill" => {
            let spec = parse_spec(Value::Object(arguments.clone()))?;
            let (snapshot, warnings) = checked_snapshot(&spec)?;
            let stored = server
                .store()
                .create(
                    snapshot,
                    Provenance::Api,
                    change(caller, format!("create {}", spec.name)),
                )
                .await
                .map_err(store_error)?;
            server.refresh().await.map_err(store_error)?;
            Ok(format!(
                "Created `{}` at revision {}; {}.{}",
                stored.name,
                stored.revision,
                callable_as(&server.catalog(), &stored.name),
                if warnings.is_empty() {
                    String::new()
                } else {
                    format!("\nWarnings:\n{warnings}")
                }
            ))
        }
        "update_skill" => {
            let skill_name = text_arg(arguments, "name")?;
            let expected = revision_arg(arguments, "expected_revision")?;
            let current = merge_base(server, skill_name, expected).await?;
            let files = current.files();
            let base = SkillSpec::from_skill(&current.skill_md, &current.golden, |path| {
                files
                    .get(path)
                    .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
            })
            .map_err(|error| {
                format!("`{skill_name}` cannot be edited as structured data: {error}")
            })?;
            let mut merged = serde_json::to_value(&base).map_err(|e| e.to_string())?;
            if let Some(object) = merged.as_object_mut() {
                for (key, value) in arguments
                    .iter()
                    .filter(|(key, _)| *key != "expected_revision")
                {
                    object.insert(key.clone(), value.clone());
                }
            }
            let spec = parse_spec(merged)?;
            let (snapshot, warnings) = checked_snapshot(&spec)?;
            let stored = server
                .store()
                .update(
                    skill_name,
                    expected,
                    snapshot,
                    change(caller, format!("update {skill_name}")),
                )
                .await
                .map_err(store_error)?;
            server.refresh().await.map_err(store_error)?;
            Ok(format!(
                "Updated `{}` to revision {}.{}",
                stored.name,
                stored.revision,
                if warnings.is_empty() {
                    String::new()
                } else {
                    format!("\nWarnings:\n{warnings}")
                }
            ))
        }
        "delete_skill" => {
            let skill_name = text_arg(arguments, "name")?;
            let expected = revision_arg(arguments, "expected_revision")?;
            let stored = server
                .store()
                .delete(
                    skill_name,
                    expected,
                    change(caller, format!("delete {skill_name}")),
                )
                .await
                .map_err(store_error)?;
            server.refresh().await.map_err(store_error)?;
            Ok(format!(
                "Deleted `{}` (revision {}); it stays in history.",
                stored.name, stored.revision
            ))
        }
        "rollback_skill" => {
            let skill_name = text_arg(arguments, "name")?;
            let to = revision_arg(arguments, "to_revision")?;
            let expected = revision_arg(arguments, "expected_revision")?;
            let stored = server
                .store()
                .rollback(
                    skill_name,
                    to,
                    expected,
                    change(caller, format!("roll {skill_name} back to revision {to}")),
                )
                .await
                .map_err(store_error)?;
            server.refresh().await.map_err(store_error)?;
            Ok(format!(
                "`{}` is at revision {}, with the content of revision {to}.",
                stored.name, stored.revision
            ))
        }
        "list_api_keys" => {
            let keys = server.store().list_keys().await.map_err(store_error)?;
            serde_json::to_string_pretty(&serde_json::json!({ "keys": keys }))
                .map_err(|error| error.to_string())
        }
        "create_api_key" => {
            let key_name = text_arg(arguments, "name")?;
            let role = text_arg(arguments, "role")?;
            let role = Role::parse(role).ok_or_else(|| {
                format!("`{role}` is not a role: use `reader`, `author` or `admin`")
            })?;
            let lifetime = match arguments.get("expires").and_then(Value::as_str) {
                Some(text) => Some(keys::parse_lifetime(text)?),
                None => None,
            };
            let created = keys::create(server.store(), key_name, role, lifetime)
                .await
                .map_err(store_error)?;
            serde_json::to_string_pretty(&created).map_err(|error| error.to_string())
        }
        "revoke_api_key" => {
            let key_name = text_arg(arguments, "name")?;
            let info = server
                .store()
                .revoke_key(key_name)
                .await
                .map_err(store_error)?;
            Ok(format!(
                "Revoked the API key `{}` ({}).",
                info.name, info.prefix
            ))
        }
        other => Err(format!("unknown built-in tool `{other}`")),
    }
}

/// The skill `update_skill` merges the caller's fields into: revision `expected` itself, from
/// the catalog when it holds that revision, else read from the store.
///
/// The catalog can be behind the store: a write by another process (`skillpath import` on
/// SQLite, which has no change signals; another replica on PostgreSQL until its catalog
/// follows), or a concurrent call that has committed but not yet refreshed the catalog. A
/// caller who read revision N from the store (`get_skill` reads it there) and updates with
/// `expected_revision` N would otherwise have its fields merged into an older revision, and
/// the write, accepted as made at revision N, would silently undo every change since that
/// older one. When the store's current revision is not `expected` the update is refused as
/// stale here, as the store would refuse it.
async fn merge_base(
    server: &SkillServer,
    name: &str,
    expected: u64,
) -> Result<Arc<CatalogSkill>, String> {
    if let Some(skill) = server.catalog().skill(name)
        && skill.stored.revision == expected
    {
        return Ok(Arc::clone(skill));
    }
    let stored = server.store().get(name, None).await.map_err(store_error)?;
    if stored.revision != expected {
        return Err(store_error(StoreError::StaleRevision {
            name: name.to_owned(),
            expected,
            actual: stored.revision,
        }));
    }
    Ok(Arc::new(CatalogSkill::new(stored)))
}

fn parse_spec(value: Value) -> Result<SkillSpec, String> {
    if let Some(at) = nul_character(&value, "") {
        return Err(format!(
            "`{at}` contains a NUL character (U+0000); a skill is text: remove it"
        ));
    }
    serde_json::from_value(value)
        .map_err(|error| format!("the skill is not in the expected shape: {error}"))
}

/// Where in `value` (a key path such as `phases[0].content`) a string or key holds a NUL
/// character, which no skill text needs: YAML cannot hold it unescaped, and PostgreSQL cannot
/// store it at all. Recursion is bounded by JSON's own nesting limit (128).
fn nul_character(value: &Value, at: &str) -> Option<String> {
    match value {
        Value::String(text) => text.contains('\0').then(|| at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| nul_character(item, &format!("{at}[{index}]"))),
        Value::Object(entries) => entries.iter().find_map(|(key, item)| {
            let path = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            if key.contains('\0') {
                Some(path.escape_debug().to_string())
            } else {
                nul_character(item, &path)
            }
        }),
        _ => None,
    }
}

/// How the skill `name` can be called now, by the catalog's tool table: as its tool, or,
/// when it has none (its tool name is another skill's, a built-in's, or no tool name at all),
/// through `load_skill`, saying why.
fn callable_as(catalog: &crate::catalog::Catalog, name: &str) -> String {
    if let Some((tool, _)) = catalog.tools().find(|(_, skill)| skill.stored.name == name) {
        return format!("it is callable now as the tool `{tool}`");
    }
    match catalog
        .collisions
        .iter()
        .find(|collision| collision.loser == name)
    {
        Some(collision) => format!(
            "it has no tool of its own: the tool name `{}` belongs to {} ({}); call it with `load_skill`",
            collision.tool_name,
            collision.holder(),
            collision.reason.rule()
        ),
        None => "call it with `load_skill`".to_owned(),
    }
}

/// Writes `spec` as a skill and validates it in memory like `skillpath validate` (spec mode,
/// lints): errors refuse it; warnings come back as text.
fn checked_snapshot(spec: &SkillSpec) -> Result<(SkillSnapshot, String), String> {
    let written = spec
        .write()
        .map_err(|error| format!("the skill cannot be written: {error}"))?;
    let files: Vec<SkillFile> = written
        .files
        .iter()
        .map(|f| SkillFile {
            path: f.path.clone(),
            bytes: f.content.clone().into_bytes(),
        })
        .collect();
    let snapshot =
        SkillSnapshot::new(written.skill_md, files).map_err(|error| error.to_string())?;
    // Validated in memory, in a folder named as the skill; messages name files as the skill
    // knows them (`SKILL.md`, `templates/x.cs`), so the bundle is shown at no path.
    let mut bundle = snapshot.to_bundle(&spec.name);
    bundle.display_path = PathBuf::new();
    let report = validate(
        &bundle,
        &ValidateOptions {
            load: LoadOptions {
                mode: Mode::Spec,
                ..LoadOptions::default()
            },
            lints: true,
        },
    );
    let describe = |severity: Severity| -> String {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .map(|d| {
                let line = d
                    .location
                    .as_ref()
                    .map(|l| format!(" (SKILL.md line {})", l.start.line))
                    .unwrap_or_default();
                let hint = d
                    .hint
                    .as_ref()
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                format!("- {}: {}{line}{hint}\n", d.code, d.message)
            })
            .collect()
    };
    let errors = describe(Severity::Error);
    if !errors.is_empty() {
        return Err(format!(
            "the skill has errors; fix them and try again:\n{errors}"
        ));
    }
    Ok((snapshot, describe(Severity::Warning)))
}
