//! `/skills/<name>`: a skill as the agent sees it (its rendered `SKILL.md`, metadata, files,
//! its MCP tool exactly as `tools/list` gives it, its Skills-extension entry, the tokens each
//! tier of disclosure costs), a form built from its tool's schema whose answer
//! (`/skills/<name>/try`) is exactly what `tools/call` returns, and, for a package, its options,
//! pages and members. `/skills/<name>/files/<path>` shows one of its files.

use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value};
use skillpath_app::SkillContent;
use skillpath_app::{
    Directory, FullName, Kind, Operation, Visibility, name_of_key, namespace_of_key, release,
};

use skillpath_core::golden_path::schema::input_schema;
use skillpath_server::catalog::{Catalog, CatalogSkill};

use super::common::{Shell, Studio, html, tokens};
use crate::encode::{encode_path, encode_query};
use crate::markdown;
use crate::visitor::Visitor;

/// The most bytes of a file the viewer shows.
pub(crate) const MAX_VIEWED_BYTES: usize = 1024 * 1024;

/// One field of the form built from a tool's input schema.
pub(crate) struct Field {
    pub(crate) name: String,
    /// The query parameter it is sent as (`arg.<name>`).
    pub(crate) param: String,
    /// `text`, `number`, `checkbox` or `select`.
    pub(crate) input: &'static str,
    pub(crate) description: String,
    pub(crate) required: bool,
    /// The value shown: the one given, else the default.
    pub(crate) value: String,
    /// A select's choices.
    pub(crate) choices: Vec<String>,
    pub(crate) checked: bool,
}

/// A file of the skill, as the tree lists it.
pub(crate) struct FileRow {
    path: String,
    href: String,
    size: u64,
    depth: usize,
}

/// What a call of the skill's tool answered.
pub(crate) struct Answer {
    /// The tool and arguments called, as JSON.
    call: String,
    text: String,
    is_error: bool,
}

#[derive(Template)]
#[template(path = "skill.html")]
struct SkillPage {
    shell: Shell,
    name: String,
    href: String,
    description: String,
    kind: &'static str,
    revision: u64,
    provenance: String,
    package: Option<String>,
    body_html: String,
    frontmatter: Vec<(String, String)>,
    files: Vec<FileRow>,
    tool: String,
    tool_name: Option<String>,
    entry: String,
    tiers: Vec<(&'static str, usize, usize, &'static str)>,
    fields: Vec<Field>,
    answer: Option<Answer>,
    findings: Vec<Finding>,
    options: Vec<Field>,
    members: Vec<(String, String, String)>,
    docs: Vec<(String, String)>,
    may_write: bool,
    /// Its full name (`@ns/name`), its namespace's page and its visibility.
    full_name: String,
    namespace: String,
    visibility: String,
    /// How many people starred it.
    stars: usize,
    /// The star button for a signed-in person: the value it posts and its label.
    star: Option<(&'static str, &'static str)>,
    /// Its releases, highest first.
    releases: Vec<ReleaseRow>,
    /// What this server's channel serves of it, when it serves a release.
    served: Option<String>,
    /// Whether the visitor may release it or propose a release (the release form's button says
    /// which).
    may_release: bool,
    /// Whether the visitor releases (a maintainer), rather than proposes: they yank, move tags,
    /// and release or decline proposals.
    releases_made: bool,
    /// The releases authors proposed, waiting for a maintainer (shown to who may release).
    proposals: Vec<ReleaseRow>,
}

/// A release as the item's page lists it.
struct ReleaseRow {
    version: String,
    revision: u64,
    author: String,
    notes: String,
    /// The tags that point at it (`latest` too, where it follows this one).
    tags: Vec<String>,
    /// Why it was yanked.
    yanked: Option<String>,
}

/// The releases of the item `name` in `directory`, highest first, with their tags.
fn release_rows(directory: &Directory, name: &str) -> Vec<ReleaseRow> {
    let releases = directory.releases_of(name);
    let tags = directory.tags_of(name);
    let latest = release::tag_target(releases, tags, release::LATEST);
    releases
        .iter()
        .rev()
        .map(|found| {
            let mut pointing: Vec<String> = tags
                .iter()
                .filter(|tag| release::same_version(&tag.version, &found.version))
                .map(|tag| tag.name.clone())
                .collect();
            if latest.is_some_and(|latest| latest.version == found.version)
                && !pointing.iter().any(|tag| tag == release::LATEST)
            {
                pointing.insert(0, release::LATEST.to_owned());
            }
            ReleaseRow {
                version: found.version.to_string(),
                revision: found.revision,
                author: found.author.clone(),
                notes: found.notes.clone(),
                tags: pointing,
                yanked: found.yanked.as_ref().map(|yanked| yanked.reason.clone()),
            }
        })
        .collect()
}

/// The releases proposed for the item `name` in `directory`, highest first.
fn proposal_rows(directory: &Directory, name: &str) -> Vec<ReleaseRow> {
    directory
        .proposals_of(name)
        .iter()
        .rev()
        .map(|proposal| ReleaseRow {
            version: proposal.version.to_string(),
            revision: proposal.revision,
            author: proposal.author.clone(),
            notes: proposal.notes.clone(),
            tags: proposal.tags.clone(),
            yanked: None,
        })
        .collect()
}

/// What the yank, tag and decline forms post: the release's version, and the reason (a yank's,
/// a decline's) or the tag.
#[derive(serde::Deserialize)]
pub(crate) struct ReleaseActionForm {
    version: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    tag: String,
}

/// What a maintainer does to a release from the item's page.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ReleaseAction {
    /// `POST /skills/<name>/yank`: a release hidden from resolution, with the reason.
    Yank,
    /// `POST /skills/<name>/tag`: a tag pointed at a release (moving `latest` back is the
    /// rollback).
    Tag,
    /// `POST /skills/<name>/decline`: a proposed release declined, with the reason.
    Decline,
}

/// The [`ReleaseAction`] `action` on the item `name`, as the form asks; back to its page, or
/// the refusal.
pub(crate) async fn release_action(
    studio: Studio,
    visitor: Visitor,
    name: String,
    form: ReleaseActionForm,
    action: ReleaseAction,
) -> Response {
    let changed = async {
        let version = form_version(&form.version)?;
        let permit = studio.permit(&visitor, Operation::ReleaseSkill)?;
        let app = studio.server.app();
        let reason = form.reason.trim().to_owned();
        match action {
            ReleaseAction::Yank => app.yank(&permit, &name, version, reason).await,
            ReleaseAction::Decline => app.decline(&permit, &name, version, reason).await,
            ReleaseAction::Tag => {
                app.tag(&permit, &name, form.tag.trim(), Some(version))
                    .await
            }
        }
    };
    let title = match action {
        ReleaseAction::Yank => "Not yanked",
        ReleaseAction::Tag => "The tag was not moved",
        ReleaseAction::Decline => "Not declined",
    };
    after_release_change(&studio, &visitor, &name, changed.await, title)
}

/// The version a form posted, or the refusal that names the field.
fn form_version(text: &str) -> Result<release::Version, skillpath_app::AppError> {
    release::parse_version(text)
        .map_err(|error| skillpath_app::AppError::Invalid(format!("- version: {error}\n")))
}

/// Back to the item's page after a change of its releases, or the refusal under `title`.
fn after_release_change<T>(
    studio: &Studio,
    visitor: &Visitor,
    name: &str,
    result: Result<T, skillpath_app::AppError>,
    title: &str,
) -> Response {
    match result {
        Ok(_) => super::common::see_other(&format!("/skills/{}", encode_path(name))),
        Err(error) => studio.message(
            visitor,
            StatusCode::CONFLICT,
            title,
            skillpath_server::app_error(error),
        ),
    }
}

/// What the release form posts: the version, notes, and tags separated by commas or spaces.
#[derive(serde::Deserialize)]
pub(crate) struct ReleaseForm {
    version: String,
    #[serde(default)]
    notes: String,
    #[serde(default)]
    tags: String,
}

/// `POST /skills/<name>/release`: the item's current revision released by a maintainer of its
/// namespace (the application decides; a refusal says why and what to do).
pub(crate) async fn release(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    axum::Form(form): axum::Form<ReleaseForm>,
) -> Response {
    let released = async {
        let version = form_version(&form.version)?;
        let request = skillpath_app::ReleaseRequest {
            name: name.clone(),
            version,
            revision: None,
            notes: form.notes.trim().to_owned(),
            tags: form
                .tags
                .split([',', ' '])
                .filter(|tag| !tag.is_empty())
                .map(str::to_owned)
                .collect(),
            forced: None,
        };
        let permit = studio.permit(&visitor, Operation::ReleaseSkill)?;
        studio.server.app().release(&permit, request).await
    };
    after_release_change(&studio, &visitor, &name, released.await, "Not released")
}

/// What the visibility form posts.
#[derive(serde::Deserialize)]
pub(crate) struct VisibilityForm {
    visibility: String,
}

/// `POST /skills/<name>/visibility`: who sees the item, changed by its author or a maintainer
/// of its namespace (the application decides; a refusal says why).
pub(crate) async fn visibility(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    axum::Form(form): axum::Form<VisibilityForm>,
) -> Response {
    let changed = async {
        let visibility = Visibility::parse(&form.visibility).ok_or_else(|| {
            skillpath_app::AppError::Invalid(format!(
                "- visibility: `{}` is none of private, namespace, public\n",
                form.visibility
            ))
        })?;
        let permit = studio.permit(&visitor, Operation::Govern)?;
        studio
            .server
            .app()
            .set_visibility(&permit, &name, visibility)
            .await
    };
    match changed.await {
        Ok(_) => super::common::see_other(&format!("/skills/{}", encode_path(&name))),
        Err(error) => studio.message(
            &visitor,
            StatusCode::CONFLICT,
            "The visibility was not changed",
            skillpath_server::app_error(error),
        ),
    }
}

/// What the star button posts.
#[derive(serde::Deserialize)]
pub(crate) struct StarForm {
    starred: bool,
}

/// `POST /skills/<name>/star`: the visitor's person stars or unstars the item.
pub(crate) async fn star(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    axum::Form(form): axum::Form<StarForm>,
) -> Response {
    let operation = if form.starred {
        Operation::StarSkill
    } else {
        Operation::UnstarSkill
    };
    let starred = async {
        let permit = studio.permit(&visitor, operation)?;
        studio
            .server
            .app()
            .star(&permit, None, &name, form.starred)
            .await
    };
    match starred.await {
        Ok(_) => super::common::see_other(&format!("/skills/{}", encode_path(&name))),
        Err(error) => studio.message(
            &visitor,
            StatusCode::CONFLICT,
            "The star was refused",
            skillpath_server::app_error(error),
        ),
    }
}

/// An audit finding, as shown.
pub(crate) struct Finding {
    pub(crate) rule: String,
    pub(crate) severity: String,
    pub(crate) place: String,
    pub(crate) message: String,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
) -> Response {
    show(studio, visitor, name, None, Vec::new()).await
}

/// `GET /skills/<name>/try?arg.<name>=…`: the form's values called as the skill's tool.
pub(crate) async fn try_it(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let given: Vec<(String, String)> = query
        .into_iter()
        .filter_map(|(key, value)| key.strip_prefix("arg.").map(|k| (k.to_owned(), value)))
        .collect();
    show(studio, visitor, name, Some(()), given).await
}

async fn show(
    studio: Studio,
    visitor: Visitor,
    name: String,
    called: Option<()>,
    given: Vec<(String, String)>,
) -> Response {
    let (skill, content) = match studio.item(&visitor, &name).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let listed = studio.server.listed_tool(&visitor.caller(), &name);
    let schema = listed
        .as_ref()
        .and_then(|tool| tool.get("inputSchema").cloned())
        .unwrap_or_else(|| input_schema(&skill.args));
    let fields = fields_of(&schema, &given);
    let values = values_of(&schema, &given);
    let answer = match called {
        Some(()) => Some(call(&studio, &visitor, &name, values).await),
        None => None,
    };
    // What the agent reads when it loads the skill with no values: the instructions tier.
    let (_, loaded) = studio
        .server
        .try_skill(&visitor.caller(), &name, Map::new())
        .await;
    let listing = listed
        .as_ref()
        .map(|tool| serde_json::to_string_pretty(tool).unwrap_or_default());
    let entry = match &skill.entry.0 {
        Ok(entry) => serde_json::to_string_pretty(entry).unwrap_or_default(),
        Err(why) => format!("Not in `skills/list`: {why}."),
    };
    // A skill whose call needs arguments costs at least its `SKILL.md`.
    let instructions = match loaded.is_error {
        false => loaded.text.len(),
        true => content.stored.snapshot.skill_md.len(),
    };
    let resources: u64 = skill.files.iter().map(|f| f.size).sum();
    let catalog_bytes = listing.as_ref().map_or(0, String::len);
    let tiers = vec![
        (
            "Catalog",
            catalog_bytes,
            tokens(catalog_bytes),
            "the tool in tools/list, which every agent sees in every session",
        ),
        (
            "Instructions",
            instructions,
            tokens(instructions),
            "what a call returns, read when the skill is chosen",
        ),
        (
            "Resources",
            resources as usize,
            tokens(resources as usize),
            "its other files, read only when the instructions point to them",
        ),
    ];
    let body_html = markdown::to_html(content.skill_md.body(), &name);
    let frontmatter = frontmatter_rows(&content);
    let package = skill.package.as_ref().map(|m| m.package.clone());
    let listed_catalog = studio.catalog_for(&visitor);
    let (options, members, docs) = package_parts(&listed_catalog, &skill);
    let sight = studio
        .server
        .app()
        .sight_in(&visitor.caller(), &listed_catalog);
    let full = FullName::new(namespace_of_key(&name), name_of_key(&name));
    let star = sight.handle().map(|_| match sight.starred(&name) {
        true => ("false", "Unstar"),
        false => ("true", "Star"),
    });
    let right = studio
        .server
        .app()
        .release_right(&visitor.caller(), &name)
        .await;
    let may_release = right.is_some();
    let releases_made = right == Some(skillpath_app::ReleaseRight::Release);
    let page = SkillPage {
        shell: studio.shell(&visitor, name.clone(), "catalog"),
        href: format!("/skills/{}", encode_path(&name)),
        description: skill.description.clone(),
        kind: match (skill.kind, skill.golden_path) {
            (Kind::Package, _) => "architecture package",
            (Kind::Skill, true) => "Golden Path skill",
            (Kind::Skill, false) => "skill",
        },
        revision: skill.revision,
        provenance: provenance(&skill),
        package,
        body_html,
        frontmatter,
        files: file_rows(&name, &skill),
        tool_name: listed.as_ref().map(|_| skill.tool_name.clone()),
        tool: listing.unwrap_or_else(|| {
            format!("No tool of its own: agents call it with `load_skill` and name `{name}`.")
        }),
        entry,
        tiers,
        fields,
        answer,
        findings: findings_of(&content),
        options,
        members,
        docs,
        may_write: studio
            .server
            .app()
            .allows(&visitor.caller(), Operation::UpdateSkill),
        full_name: full.to_string(),
        namespace: full.namespace.to_string(),
        visibility: listed_catalog
            .people()
            .directory
            .access(&name)
            .visibility
            .to_string(),
        stars: listed_catalog.stars_of(&name),
        star,
        releases: release_rows(&listed_catalog.people().directory, &name),
        served: served_text(&studio, &visitor, &name),
        may_release,
        releases_made,
        proposals: if may_release {
            proposal_rows(&listed_catalog.people().directory, &name)
        } else {
            Vec::new()
        },
        name,
    };
    html(&page)
}

/// What the visitor's channel serves of the item `name`, when it serves one of its releases.
fn served_text(studio: &Studio, visitor: &Visitor, name: &str) -> Option<String> {
    let (channel, release) = studio.server.app().served_release(&visitor.caller(), name);
    release.map(|release| {
        format!(
            "Agents on the channel `{channel}` (yours) are served {} (revision {}).",
            release.version, release.revision
        )
    })
}

/// Calls the skill `name` with `values` as the visitor, as `tools/call` would.
async fn call(
    studio: &Studio,
    visitor: &Visitor,
    name: &str,
    values: Map<String, Value>,
) -> Answer {
    let (call, answered) = studio
        .server
        .try_skill(&visitor.caller(), name, values)
        .await;
    Answer {
        call: serde_json::to_string_pretty(&call).unwrap_or_default(),
        text: answered.text,
        is_error: answered.is_error,
    }
}

/// The form fields of an input schema, with the values given (else the defaults).
pub(crate) fn fields_of(schema: &Value, given: &[(String, String)]) -> Vec<Field> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let given = given
                .iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, v)| v.clone());
            let default = match &property["default"] {
                Value::Null => String::new(),
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let choices: Vec<String> = property["enum"]
                .as_array()
                .map(|values| {
                    values
                        .iter()
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let kind = property["type"].as_str().unwrap_or("string");
            let value = given.clone().unwrap_or(default);
            let input = match kind {
                _ if !choices.is_empty() => "select",
                "boolean" => "checkbox",
                "number" | "integer" => "number",
                _ => "text",
            };
            Field {
                param: format!("arg.{name}"),
                name: name.clone(),
                input,
                description: property["description"].as_str().unwrap_or("").to_owned(),
                required: required.contains(&name.as_str()),
                checked: value == "true",
                value,
                choices,
            }
        })
        .collect()
}

/// The arguments of a call from the form's values, typed as the schema says: a number that
/// does not read as one, like every string, is passed as written, so the call reports it as
/// a client sending it would have it reported. An empty value is left out.
fn values_of(schema: &Value, given: &[(String, String)]) -> Map<String, Value> {
    let mut values = Map::new();
    for (name, value) in given {
        if value.is_empty() {
            continue;
        }
        let kind = schema["properties"][name.as_str()]["type"]
            .as_str()
            .unwrap_or("string");
        let typed = match kind {
            "boolean" if value == "true" || value == "false" => Value::Bool(value == "true"),
            "number" | "integer" => serde_json::from_str::<serde_json::Number>(value)
                .map(Value::Number)
                .unwrap_or_else(|_| Value::String(value.clone())),
            _ => Value::String(value.clone()),
        };
        // A checkbox sends `false` (a hidden field), then `true` when checked: the last wins.
        values.insert(name.clone(), typed);
    }
    values
}

fn frontmatter_rows(content: &SkillContent) -> Vec<(String, String)> {
    match content.skill_md.frontmatter_json() {
        Value::Object(fields) => fields
            .into_iter()
            .map(|(key, value)| {
                let shown = match value {
                    Value::String(text) => text,
                    other => serde_json::to_string_pretty(&other).unwrap_or_default(),
                };
                (key, shown)
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn file_rows(name: &str, skill: &CatalogSkill) -> Vec<FileRow> {
    let manifest = skill.kind.manifest();
    std::iter::once((manifest.to_owned(), skill.skill_md.size))
        .chain(skill.files.iter().map(|f| (f.path.clone(), f.size)))
        .map(|(path, size)| FileRow {
            href: file_href(name, &path),
            depth: path.matches('/').count(),
            path,
            size,
        })
        .collect()
}

/// The viewer's URL of the file `path` of the skill `name`.
pub(crate) fn file_href(name: &str, path: &str) -> String {
    let parts: Vec<String> = path.split('/').map(encode_path).collect();
    format!("/skills/{}/files/{}", encode_path(name), parts.join("/"))
}

fn provenance(skill: &CatalogSkill) -> String {
    use skillpath_app::Provenance;
    match &skill.provenance {
        Provenance::Imported { path, scope, .. } => format!("imported from {path} ({scope})"),
        Provenance::Api => "written through skillpath".to_owned(),
        Provenance::Forked { from, revision } => {
            format!("forked from {from} at revision {revision}")
        }
    }
}

pub(crate) fn findings_of(content: &SkillContent) -> Vec<Finding> {
    content
        .stored
        .audit
        .as_ref()
        .map(|audit| {
            audit
                .findings
                .iter()
                .map(|f| Finding {
                    rule: f.rule.clone(),
                    severity: f.severity.to_string(),
                    place: f.place(),
                    message: f.message.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

type PackageParts = (
    Vec<Field>,
    Vec<(String, String, String)>,
    Vec<(String, String)>,
);

/// A package's options (as form fields, read-only), members (name, link, description) and
/// documentation pages (path, link).
fn package_parts(catalog: &Catalog, skill: &Arc<CatalogSkill>) -> PackageParts {
    let Some(manifest) = &skill.manifest else {
        return (Vec::new(), Vec::new(), Vec::new());
    };
    let options = fields_of(&input_schema(&manifest.options), &[]);
    let members = manifest
        .member_names()
        .into_iter()
        .map(|member| {
            let description = catalog.skill(&member).map_or_else(
                || "(not in the store)".to_owned(),
                |s| s.description.clone(),
            );
            let href = format!("/skills/{}", encode_path(&member));
            (member, href, description)
        })
        .collect();
    let docs = manifest
        .docs
        .iter()
        .map(|path| (path.clone(), file_href(&skill.name, path)))
        .collect();
    (options, members, docs)
}

#[derive(Template)]
#[template(path = "file.html")]
struct FilePage {
    shell: Shell,
    name: String,
    skill_href: String,
    path: String,
    size: usize,
    text: Option<String>,
    cut: bool,
    may_write: bool,
    edit_href: String,
}

/// `GET /skills/<name>/files/<path>`: one of the skill's files, looked up among its files by
/// exact path (so `..` or an absolute path names none); text is shown escaped, never served as
/// what it claims to be.
pub(crate) async fn file(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path((name, path)): Path<(String, String)>,
) -> Response {
    let (_, content) = match studio.item(&visitor, &name).await {
        Ok(found) => found,
        Err(page) => return page,
    };
    let Some(bytes) = content.bytes(&path) else {
        return studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "No such file",
            format!("The skill `{name}` has no file `{path}`."),
        );
    };
    let text = std::str::from_utf8(bytes).ok();
    let (shown, cut) = match text {
        Some(text) => {
            let (shown, cut) = markdown::within(text, MAX_VIEWED_BYTES);
            (Some(shown.to_owned()), cut)
        }
        None => (None, false),
    };
    let page = FilePage {
        shell: studio.shell(&visitor, format!("{path} · {name}"), "catalog"),
        skill_href: format!("/skills/{}", encode_path(&name)),
        edit_href: format!(
            "/skills/{}/edit?file={}",
            encode_path(&name),
            encode_query(&path)
        ),
        may_write: studio
            .server
            .app()
            .allows(&visitor.caller(), Operation::UpdateSkill)
            && shown.is_some(),
        size: bytes.len(),
        text: shown,
        cut,
        name,
        path,
    };
    html(&page)
}
