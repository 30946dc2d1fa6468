//! `/skills/<name>/edit`: a skill's `SKILL.md` or one of its text files in an editor, with the
//! validator's diagnostics, the audit's findings and a preview, checked again as you type
//! (`POST /skills/<name>/check`). A save names the revision the edit started from; when someone
//! saved since, nothing is written and the page shows their change beside yours with the two
//! merged (three ways, by `git merge-file`) to review and save again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form, Json};
use serde::{Deserialize, Serialize};
use skillpath_app::{
    AppError, Kind, Operation, SkillSnapshot, StoreError, StoredSkill, Visibility, Written,
};
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{ValidateOptions, validate};
use skillpath_core::{Mode, skill_md};
use skillpath_server::app_error;
use skillpath_sources::folders::files_of;

use super::common::{Shell, Studio, html, html_status, see_other};
use crate::diff_view;
use crate::encode::{encode_path, encode_query, escape_html};
use crate::markdown;
use crate::visitor::Visitor;

/// The most bytes of text the editor takes in one file.
pub(crate) const MAX_EDITED_BYTES: usize = 4 * 1024 * 1024;

#[derive(Deserialize)]
pub(crate) struct FileQuery {
    file: Option<String>,
}

/// A diagnostic or a finding, where it is and what it says.
#[derive(Serialize, Clone)]
pub(crate) struct Mark {
    /// 1-based; 0 when it has no place in this file.
    line: usize,
    column: usize,
    severity: String,
    code: String,
    message: String,
    hint: String,
}

/// What the editor shows beside the text.
#[derive(Serialize)]
pub(crate) struct Checked {
    diagnostics: Vec<Mark>,
    findings: Vec<Mark>,
    preview: String,
}

/// The merge shown after a stale save.
pub(crate) struct Merge {
    /// The revision saved meanwhile, and by whom.
    current: u64,
    author: String,
    /// Their change and yours, each from the revision the edit started from, as HTML.
    theirs: String,
    yours: String,
    conflicts: Vec<String>,
}

#[derive(Template)]
#[template(path = "edit.html")]
struct EditPage {
    shell: Shell,
    name: String,
    href: String,
    file: String,
    files: Vec<(String, String, bool)>,
    text: String,
    base: u64,
    message: String,
    checked: Checked,
    merge: Option<Merge>,
    review: bool,
    error: Option<String>,
    /// The folder it was imported from, whose content a `serve` that syncs it writes again.
    imported_from: Option<String>,
    /// Who sees it now.
    visibility: &'static str,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Query(query): Query<FileQuery>,
) -> Response {
    let stored = async {
        let permit = studio.permit(&visitor, Operation::GetSkill)?;
        studio.server.app().revision(&permit, &name, None).await
    };
    let stored = match stored.await {
        Ok(stored) if !stored.deleted => stored,
        _ => return studio.no_skill(&visitor, &name),
    };
    let file = query
        .file
        .unwrap_or_else(|| stored.snapshot.kind.manifest().to_owned());
    let Some(text) = text_of(&stored.snapshot, &file) else {
        return studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "This file cannot be edited here",
            format!("`{name}` has no text file `{file}`."),
        );
    };
    let text = text.to_owned();
    let page = edit_page(
        &studio,
        &visitor,
        &stored,
        file,
        text,
        String::new(),
        None,
        None,
    );
    html(&page)
}

#[allow(clippy::too_many_arguments)]
fn edit_page(
    studio: &Studio,
    visitor: &Visitor,
    stored: &StoredSkill,
    file: String,
    text: String,
    message: String,
    merge: Option<Merge>,
    error: Option<String>,
) -> EditPage {
    let name = stored.name.clone();
    let checked = check_text(&stored.snapshot, &name, &file, &text);
    let manifest = stored.snapshot.kind.manifest();
    let files = std::iter::once(manifest.to_owned())
        .chain(
            stored
                .snapshot
                .files
                .iter()
                .filter(|f| std::str::from_utf8(&f.bytes).is_ok())
                .map(|f| f.path.clone()),
        )
        .map(|path| {
            let href = format!(
                "/skills/{}/edit?file={}",
                encode_path(&name),
                encode_query(&path)
            );
            let current = path == file;
            (path, href, current)
        })
        .collect();
    EditPage {
        shell: studio.shell(visitor, format!("Edit {name}"), "catalog"),
        href: format!("/skills/{}", encode_path(&name)),
        base: merge.as_ref().map_or(stored.revision, |m| m.current),
        review: studio.server.app().drafted(&visitor.caller()),
        name,
        file,
        files,
        text,
        message,
        checked,
        merge,
        error,
        imported_from: Some(stored.provenance.folder().to_owned()).filter(|f| !f.is_empty()),
        visibility: visibility_of(studio, visitor, &stored.name).as_str(),
    }
}

/// Who sees the item `name` now, as the visitor's view of the catalog says.
fn visibility_of(studio: &Studio, visitor: &Visitor, name: &str) -> Visibility {
    studio
        .catalog_for(visitor)
        .people()
        .directory
        .access(name)
        .visibility
}

/// The text of the file `path` of `snapshot` (its manifest or one of its files).
fn text_of<'a>(snapshot: &'a SkillSnapshot, path: &str) -> Option<&'a str> {
    if path == snapshot.kind.manifest() {
        return Some(&snapshot.skill_md);
    }
    let file = snapshot.files.iter().find(|f| f.path == path)?;
    std::str::from_utf8(&file.bytes).ok()
}

/// `snapshot` with the file `path` holding `text`; `None` when it has no such file.
fn with_text(snapshot: &SkillSnapshot, path: &str, text: &str) -> Option<SkillSnapshot> {
    let mut edited = snapshot.clone();
    if path == snapshot.kind.manifest() {
        edited.skill_md = text.to_owned();
        return Some(edited);
    }
    let file = edited.files.iter_mut().find(|f| f.path == path)?;
    file.bytes = text.as_bytes().to_vec();
    Some(edited)
}

/// The diagnostics (spec mode, with lints, as `skillpath validate` gives them), the audit's
/// findings and the preview of `snapshot` with `file` holding `text`.
fn check_text(snapshot: &SkillSnapshot, name: &str, file: &str, text: &str) -> Checked {
    let Some(edited) = with_text(snapshot, file, text) else {
        return Checked {
            diagnostics: Vec::new(),
            findings: Vec::new(),
            preview: String::new(),
        };
    };
    let mut bundle = edited.to_bundle(name);
    bundle.display_path = PathBuf::new();
    let in_file = |path: &std::path::Path| path.to_string_lossy() == file;
    let diagnostics = match edited.kind {
        Kind::Skill => validate(
            &bundle,
            &ValidateOptions {
                load: LoadOptions {
                    mode: Mode::Spec,
                    ..LoadOptions::default()
                },
                lints: true,
            },
        )
        .diagnostics
        .into_iter()
        .map(|d| {
            let (line, column) = d
                .location
                .as_ref()
                .filter(|l| in_file(&l.file))
                .map_or((0, 0), |l| (l.start.line, l.start.column));
            Mark {
                line,
                column,
                severity: d.severity.as_str().to_owned(),
                code: d.code.to_string(),
                message: d.message,
                hint: d.hint.unwrap_or_default(),
            }
        })
        .collect(),
        Kind::Package => Vec::new(),
    };
    let audit = skillpath_audit::audit(&bundle, &skillpath_audit::Context::default());
    let findings = audit
        .findings
        .into_iter()
        .map(|f| {
            let (line, column) = match (&f.location, f.file == file) {
                (Some(l), true) => (l.start.line, l.start.column),
                _ => (0, 0),
            };
            Mark {
                line,
                column,
                severity: f.severity().as_str().to_owned(),
                code: f.rule.id().to_owned(),
                message: format!("{}: {}", f.file, f.message),
                hint: f.rule.fix().to_owned(),
            }
        })
        .collect();
    let preview = if file == edited.kind.manifest() {
        let parsed = skill_md::parse(file.into(), text.to_owned(), Mode::Lenient);
        markdown::to_html(parsed.body(), name)
    } else if file.ends_with(".md") {
        markdown::to_html(text, name)
    } else {
        format!(
            "<pre>{}</pre>",
            escape_html(markdown::within(text, 64 * 1024).0)
        )
    };
    Checked {
        diagnostics,
        findings,
        preview,
    }
}

#[derive(Deserialize)]
pub(crate) struct CheckRequest {
    file: String,
    text: String,
}

/// `POST /skills/<name>/check`: what the editor shows for the text as typed (JSON).
pub(crate) async fn check(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Json(request): Json<CheckRequest>,
) -> Response {
    if request.text.len() > MAX_EDITED_BYTES {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the editor checks at most {MAX_EDITED_BYTES} bytes\n"),
        )
            .into_response();
    }
    let catalog = studio.catalog_for(&visitor);
    let Some(skill) = catalog.item(&name).cloned() else {
        return (StatusCode::NOT_FOUND, "no such skill\n").into_response();
    };
    match studio.server.app().content(&skill).await {
        Ok(content) => Json(check_text(
            &content.stored.snapshot,
            &name,
            &request.file,
            &request.text,
        ))
        .into_response(),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, format!("{error}\n")).into_response(),
    }
}

#[derive(Deserialize)]
pub(crate) struct SaveForm {
    file: String,
    text: String,
    base: u64,
    #[serde(default)]
    message: String,
    /// Who sees it, when the form says (changed at once, beside the save).
    #[serde(default)]
    visibility: String,
}

/// `POST /skills/<name>/edit`: the file saved as the skill's next revision (or the author's
/// draft), made from revision `base`.
pub(crate) async fn save(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<SaveForm>,
) -> Response {
    let app = studio.server.app();
    let caller = visitor.caller();
    let base = async {
        let permit = app.may(&caller, Operation::GetSkill)?;
        app.revision(&permit, &name, Some(form.base)).await
    };
    let base = match base.await {
        Ok(base) => base,
        Err(_) => return studio.no_skill(&visitor, &name),
    };
    // Browsers send a textarea's lines with CRLF; the file keeps the endings it had.
    let text = if text_of(&base.snapshot, &form.file).is_some_and(|t| !t.contains("\r\n")) {
        form.text.replace("\r\n", "\n")
    } else {
        form.text.clone()
    };
    if text.len() > MAX_EDITED_BYTES {
        // The editor's page again, with the text as sent, so that nothing typed is lost.
        let why = format!(
            "Not saved: this file is {} bytes, and the editor saves at most 4 MiB ({MAX_EDITED_BYTES} bytes) in one file; shorten it, or import a folder for larger files (`skillpath import`).",
            text.len()
        );
        let page = edit_page(
            &studio,
            &visitor,
            &base,
            form.file,
            text,
            form.message,
            None,
            Some(why),
        );
        return html_status(StatusCode::PAYLOAD_TOO_LARGE, &page);
    }
    let Some(snapshot) = with_text(&base.snapshot, &form.file, &text) else {
        return studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "No such file",
            format!("`{name}` has no file `{}`.", form.file),
        );
    };
    let message = match form.message.trim() {
        "" => format!("edit {} in the studio", form.file),
        given => given.to_owned(),
    };
    let visibility = match form.visibility.as_str() {
        "" => None,
        given => match Visibility::parse(given) {
            Some(visibility) => Some(visibility),
            None => {
                return studio.message(
                    &visitor,
                    StatusCode::BAD_REQUEST,
                    "Not saved",
                    format!("`{given}` is no visibility: private, namespace or public."),
                );
            }
        },
    }
    .filter(|&visibility| visibility != visibility_of(&studio, &visitor, &name));
    let saved = async {
        let permit = app.may(&caller, Operation::SaveFiles)?;
        app.save_files(&permit, &name, form.base, snapshot, message.clone())
            .await
    };
    let saved = saved.await;
    if let (Ok(_), Some(visibility)) = (&saved, visibility) {
        let changed = async {
            let permit = app.may(&caller, Operation::Govern)?;
            app.set_visibility(&permit, &name, visibility).await
        };
        if let Err(error) = changed.await {
            return studio.message(
                &visitor,
                StatusCode::CONFLICT,
                "Saved; the visibility was not changed",
                skillpath_server::app_error(error),
            );
        }
    }
    match saved {
        Ok(Written::Drafted(_)) => see_other(&format!("/review/{}", encode_path(&name))),
        Ok(Written::Stored(_)) => see_other(&format!("/skills/{}/history", encode_path(&name))),
        // Someone wrote the skill since the revision the edit started from: nothing of either
        // change is lost; the visitor merges and saves again.
        Err(AppError::Store(StoreError::StaleRevision {
            actual: current, ..
        })) => {
            let theirs = async {
                let permit = app.may(&caller, Operation::GetSkill)?;
                app.revision(&permit, &name, None).await
            };
            let theirs = match theirs.await {
                Ok(theirs) => theirs,
                Err(error) => {
                    return studio.message(
                        &visitor,
                        StatusCode::SERVICE_UNAVAILABLE,
                        "The skill cannot be read now",
                        error.to_string(),
                    );
                }
            };
            let history = async {
                let permit = app.may(&caller, Operation::SkillHistory)?;
                app.history(&permit, &name).await
            };
            let author = history
                .await
                .ok()
                .and_then(|history| history.into_iter().find(|r| r.number == current))
                .map_or_else(String::new, |revision| revision.author);
            let merge = merge_of(&base, &theirs, &form.file, &text, (current, author));
            let merged = merge.1;
            let page = edit_page(
                &studio,
                &visitor,
                &theirs,
                form.file,
                merged,
                message,
                Some(merge.0),
                None,
            );
            html_status(StatusCode::CONFLICT, &page)
        }
        Err(error) => {
            let why = app_error(error);
            let page = edit_page(
                &studio,
                &visitor,
                &base,
                form.file,
                text,
                message,
                None,
                Some(why),
            );
            html_status(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

/// The merge of the edit (`text` in the file `file`, made on `base`) with `theirs`, saved
/// since as revision `current` by `author`: both changes side by side, and the file merged three ways.
fn merge_of(
    base: &StoredSkill,
    theirs: &StoredSkill,
    file: &str,
    text: &str,
    (current, author): (u64, String),
) -> (Merge, String) {
    let mut yours = files_of(&base.snapshot);
    yours.insert(file.to_owned(), text.as_bytes().to_vec());
    let (before, after) = (files_of(&base.snapshot), files_of(&theirs.snapshot));
    let one = |map: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
        map.get(file)
            .map(|bytes| BTreeMap::from([(file.to_owned(), bytes.clone())]))
            .unwrap_or_default()
    };
    let (merged, conflicts) =
        match skillpath_sources::merge::merge(&one(&before), &one(&yours), &one(&after)) {
            Ok(merged) => (
                merged
                    .files
                    .get(file)
                    .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
                    .unwrap_or_else(|| text.to_owned()),
                merged.conflicts,
            ),
            Err(error) => (
                text.to_owned(),
                vec![format!(
                    "the two could not be merged ({error}): your text is shown"
                )],
            ),
        };
    let merge = Merge {
        current,
        author,
        theirs: diff_view::html(diff_view::diff(&before, &after), "before", "theirs"),
        yours: diff_view::html(diff_view::diff(&before, &yours), "before", "yours"),
        conflicts,
    };
    (merge, merged)
}
