//! `/new`: a Golden Path skill from a structured form (arguments table, sections in the order
//! given with free sections anywhere, phases with template references, template files), made
//! into the same [`SkillSpec`] `create_skill` takes, checked and created by the application's
//! operations as the visitor (so as a draft where their writes are reviewed).
//!
//! The form's rows repeat their field names (`arg.name`, `arg.name`, …): a row is the i-th of
//! each, so every field of a row is always sent (a select, never a checkbox), and a row left
//! empty is no row. The script adds rows; without it the page has a few spare ones.

use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde_json::{Value, json};
use skillpath_app::{MemberRole, Namespace, Operation, Placement, Visibility, Written, read_spec};
use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_server::app_error;

use super::common::{Shell, Studio, html, html_status, see_other};
use crate::encode::encode_path;
use crate::visitor::Visitor;

/// Blank rows of each table the page starts with.
const SPARE_ROWS: usize = 2;

/// The form as posted: every field by name, in order.
struct Posted(Vec<(String, String)>);

impl Posted {
    fn one(&self, name: &str) -> String {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.trim().to_owned())
            .unwrap_or_default()
    }

    fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value.replace("\r\n", "\n"))
            .collect()
    }

    /// The rows of a table whose fields are `names`: the i-th value of each, for the rows
    /// `filled` says something was written in (a row left as the page gave it is no row).
    fn rows(&self, names: &[&str], filled: impl Fn(&[String]) -> bool) -> Vec<Vec<String>> {
        let columns: Vec<Vec<String>> = names.iter().map(|name| self.all(name)).collect();
        let count = columns.iter().map(Vec::len).max().unwrap_or(0);
        (0..count)
            .map(|i| {
                columns
                    .iter()
                    .map(|column| column.get(i).cloned().unwrap_or_default())
                    .collect::<Vec<String>>()
            })
            .filter(|row| filled(row))
            .collect()
    }

    fn args(&self) -> Vec<Vec<String>> {
        self.rows(&ARG, |row| written(row, &[0, 3, 4, 5]))
    }

    /// Sections with a heading or content, and Execution Steps, which holds the phases.
    fn sections(&self) -> Vec<Vec<String>> {
        self.rows(&SECTION, |row| {
            written(row, &[1, 2]) || row[0] == "execution-steps"
        })
    }

    fn phases(&self) -> Vec<Vec<String>> {
        self.rows(&PHASE, |row| written(row, &[0, 1, 2]))
    }

    fn templates(&self) -> Vec<Vec<String>> {
        self.rows(&TEMPLATE, |row| written(row, &[0, 1]))
    }
}

/// Whether any of the `columns` of `row` holds more than spaces.
fn written(row: &[String], columns: &[usize]) -> bool {
    columns.iter().any(|&column| {
        row.get(column)
            .is_some_and(|value| !value.trim().is_empty())
    })
}

const ARG: [&str; 6] = [
    "arg.name",
    "arg.type",
    "arg.required",
    "arg.enum",
    "arg.default",
    "arg.description",
];
const SECTION: [&str; 3] = ["section.type", "section.heading", "section.content"];
const PHASE: [&str; 3] = ["phase.name", "phase.content", "phase.templates"];
const TEMPLATE: [&str; 2] = ["template.path", "template.content"];

#[derive(Template)]
#[template(path = "new.html")]
struct NewPage {
    shell: Shell,
    name: String,
    description: String,
    tool_name: String,
    title: String,
    summary: String,
    args: Vec<Vec<String>>,
    sections: Vec<Vec<String>>,
    phases: Vec<Vec<String>>,
    templates: Vec<Vec<String>>,
    /// What a check found, and the `SKILL.md` the form makes.
    checked: Option<(bool, String)>,
    written: Option<String>,
    packages: Vec<String>,
    package: String,
    review: bool,
    /// The namespaces the visitor may write in, the one chosen, and the visibility chosen.
    namespaces: Vec<String>,
    namespace: String,
    visibility: String,
}

/// The namespaces `visitor` may write in (an author's role or more), `@global` first.
fn writable(studio: &Studio, visitor: &Visitor) -> Vec<String> {
    let catalog = studio.catalog_for(visitor);
    let sight = studio.server.app().sight_in(&visitor.caller(), &catalog);
    let mut names: Vec<String> = catalog
        .people()
        .directory
        .namespaces
        .iter()
        .filter(|record| !record.frozen && !record.archived)
        .filter(|record| {
            sight
                .role_in(&record.name)
                .is_some_and(|role| role >= MemberRole::Author)
        })
        .map(|record| record.name.to_string())
        .collect();
    names.sort_by_key(|name| (name != "@global", name.clone()));
    names
}

/// Where the form puts the new skill: its namespace and visibility (`@global` and `namespace`
/// when the form says nothing or something no placement reads).
fn placement_of(posted: &Posted) -> Placement {
    let mut placement = Placement::global();
    if let Ok(namespace) = Namespace::parse(&posted.one("namespace")) {
        placement.namespace = namespace;
    }
    if let Some(visibility) = Visibility::parse(&posted.one("visibility")) {
        placement.visibility = visibility;
    }
    placement
}

impl NewPage {
    /// Whether a field's value is this choice (for the templates' `selected`).
    fn same(&self, value: &str, choice: &str) -> bool {
        value == choice
    }
}

/// A spare section row: a free section, the kind that may come anywhere and any number of times.
fn free_section() -> Vec<String> {
    vec!["free".to_owned(), String::new(), String::new()]
}

fn blank(columns: usize, rows: usize) -> Vec<Vec<String>> {
    vec![vec![String::new(); columns]; rows]
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
) -> Response {
    let sections = ["prerequisites", "execution-steps", "success-criteria"]
        .into_iter()
        .map(|kind| vec![kind.to_owned(), String::new(), String::new()])
        .chain([free_section()])
        .collect();
    let page = NewPage {
        shell: studio.shell(&visitor, "New Golden Path skill".to_owned(), "new"),
        name: String::new(),
        description: String::new(),
        tool_name: String::new(),
        title: String::new(),
        summary: String::new(),
        args: blank(ARG.len(), SPARE_ROWS + 1),
        sections,
        phases: blank(PHASE.len(), SPARE_ROWS),
        templates: blank(TEMPLATE.len(), SPARE_ROWS),
        checked: None,
        written: None,
        packages: studio
            .catalog_for(&visitor)
            .packages()
            .map(|p| p.name.clone())
            .collect(),
        package: String::new(),
        review: studio.server.app().drafted(&visitor.caller()),
        namespaces: writable(&studio, &visitor),
        namespace: "@global".to_owned(),
        visibility: "namespace".to_owned(),
    };
    html(&page)
}

/// The spec the form describes, as `create_skill`'s arguments.
fn spec_of(posted: &Posted) -> Value {
    let optional = |value: String| (!value.is_empty()).then_some(value);
    let args: Vec<Value> = posted
        .args()
        .into_iter()
        .map(|row| {
            let mut arg = json!({
                "name": row[0].trim(),
                "type": if row[1].is_empty() { "string" } else { row[1].as_str() },
                "required": row[2] == "yes",
            });
            let choices: Vec<&str> = row[3]
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            if !choices.is_empty() {
                arg["enum"] = json!(choices);
            }
            if let Some(default) = optional(row[4].trim().to_owned()) {
                arg["default"] = json!(default);
            }
            if let Some(description) = optional(row[5].trim().to_owned()) {
                arg["description"] = json!(description);
            }
            arg
        })
        .collect();
    let sections: Vec<Value> = posted
        .sections()
        .into_iter()
        .map(|row| {
            let mut section = json!({"type": if row[0].is_empty() { "free" } else { row[0].as_str() }, "content": row[2].trim_end()});
            if let Some(heading) = optional(row[1].trim().to_owned()) {
                section["heading"] = json!(heading);
            }
            section
        })
        .collect();
    let phases: Vec<Value> = posted
        .phases()
        .into_iter()
        .map(|row| {
            let templates: Vec<Value> = row[2].lines().filter_map(template_ref).collect();
            json!({"name": row[0].trim(), "content": row[1].trim_end(), "templates": templates})
        })
        .collect();
    let templates: Vec<Value> = posted
        .templates()
        .into_iter()
        .map(|row| json!({"path": row[0].trim(), "content": row[1]}))
        .collect();
    let mut spec = json!({
        "name": posted.one("name"),
        "description": posted.one("description"),
    });
    for (field, value) in [
        ("tool_name", posted.one("tool_name")),
        ("title", posted.one("title")),
        ("summary", posted.one("summary")),
    ] {
        if !value.is_empty() {
            spec[field] = json!(value);
        }
    }
    for (field, list) in [
        ("args", args),
        ("sections", sections),
        ("phases", phases),
        ("templates", templates),
    ] {
        if !list.is_empty() {
            spec[field] = Value::Array(list);
        }
    }
    spec
}

/// A phase's template reference from a line `template -> target` or
/// `template -> target if Condition`.
fn template_ref(line: &str) -> Option<Value> {
    let (template, rest) = line.split_once("->")?;
    let (target, condition) = match rest.split_once(" if ") {
        Some((target, condition)) => (target, Some(condition.trim())),
        None => (rest, None),
    };
    let mut reference = json!({"template": template.trim(), "target": target.trim()});
    if let Some(condition) = condition {
        reference["condition"] = json!(condition);
    }
    Some(reference)
}

/// `POST /new`: `action=check` checks the skill and shows the `SKILL.md` it makes;
/// `action=create` creates it.
pub(crate) async fn submit(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Form(form): Form<Vec<(String, String)>>,
) -> Response {
    let posted = Posted(form);
    let spec = spec_of(&posted);
    let package = posted.one("package");
    let caller = visitor.caller();
    let written = serde_json::from_value::<SkillSpec>(spec.clone())
        .ok()
        .and_then(|spec| spec.write().ok())
        .map(|written| written.skill_md);
    let creating = posted.one("action") == "create";
    let app = studio.server.app();
    let (ok, text) = if creating {
        let joins = Some(package.as_str()).filter(|package| !package.is_empty());
        // Refused for the caller before the form is read, as MCP refuses `create_skill`.
        let created = async {
            let permit = app.may(&caller, Operation::CreateSkill)?;
            let spec = read_spec(spec)?;
            app.create_skill(&permit, &spec, joins, placement_of(&posted))
                .await
        };
        match created.await {
            Ok(created) => {
                return match created.written {
                    Written::Drafted(draft) => {
                        see_other(&format!("/review/{}", encode_path(&draft.name)))
                    }
                    Written::Stored(stored) => {
                        see_other(&format!("/skills/{}", encode_path(&stored.name)))
                    }
                };
            }
            Err(error) => (false, app_error(error)),
        }
    } else {
        let checked = read_spec(spec).and_then(|spec| {
            let permit = app.may(&caller, Operation::ValidateSkill)?;
            app.validate_skill(&permit, &spec)
        });
        match checked {
            Ok(checked) => (true, checked.to_string()),
            Err(error) => (false, app_error(error)),
        }
    };
    let with_spare = |mut rows: Vec<Vec<String>>, columns: usize| {
        rows.extend(blank(columns, 1));
        rows
    };
    let page = NewPage {
        shell: studio.shell(&visitor, "New Golden Path skill".to_owned(), "new"),
        name: posted.one("name"),
        description: posted.one("description"),
        tool_name: posted.one("tool_name"),
        title: posted.one("title"),
        summary: posted.one("summary"),
        args: with_spare(posted.args(), ARG.len()),
        sections: {
            let mut sections = posted.sections();
            sections.push(free_section());
            sections
        },
        phases: with_spare(posted.phases(), PHASE.len()),
        templates: with_spare(posted.templates(), TEMPLATE.len()),
        checked: Some((ok, text)),
        written,
        packages: studio
            .catalog_for(&visitor)
            .packages()
            .map(|p| p.name.clone())
            .collect(),
        package,
        review: studio.server.app().drafted(&caller),
        namespaces: writable(&studio, &visitor),
        namespace: posted.one("namespace"),
        visibility: posted.one("visibility"),
    };
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    html_status(status, &page)
}
