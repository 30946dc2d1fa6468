//! Architecture packages (Golden Path's team model): a named architecture with its layers and
//! tech stack, markdown documentation the agent reads as context, configuration options whose
//! values become template variables (`endpointStyle` → `{EndpointStyle}`), and the skills that
//! implement it.
//!
//! On disk a package is a folder with one manifest, `PACKAGE.md` (YAML frontmatter as a
//! `SKILL.md` has, then the package's overview in markdown), its documentation pages, and its
//! member skills as sub-folders:
//!
//! ```text
//! dotnet-clean-architecture/
//!   PACKAGE.md          name, description, layers, tech-stack, options, skills, docs
//!   docs/architecture.md
//!   skills/add-entity/SKILL.md
//! ```
//!
//! [`read_manifest`] reads and checks the manifest; [`check_folder`] adds what only the folder
//! can tell (members and pages that exist, stay inside, and are listed once). A member skill's
//! bundle carries the package's options ([`crate::bundle::SkillBundle::package_options`]), so
//! its validation, schema and rendering know them as variables.

use std::path::Path;

pub mod fit;
pub mod spec;

use crate::diagnostic::{Code, Diagnostic};
use crate::golden_path::args::{self, Arg, Params};
use crate::mode::Mode;
use crate::skill_md::{self, SkillMd};

/// The manifest's file name.
pub const MANIFEST: &str = "PACKAGE.md";

/// The manifest's fields.
pub const FIELDS: [&str; 7] = [
    "name",
    "description",
    "layers",
    "tech-stack",
    "options",
    "skills",
    "docs",
];

/// One layer of an architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Its name (`Domain`).
    pub name: String,
    /// What belongs in it.
    pub description: Option<String>,
}

/// A package, as its manifest says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Its name, kebab-case.
    pub name: String,
    /// What it is for, and when to choose it.
    pub description: String,
    /// Its layers, in order.
    pub layers: Vec<Layer>,
    /// Its tech stack.
    pub tech_stack: Vec<String>,
    /// Its configuration options, each with a default.
    pub options: Vec<Arg>,
    /// Its member skills: folders relative to the package, `/`-separated.
    pub skills: Vec<String>,
    /// Its documentation pages: markdown files relative to the package.
    pub docs: Vec<String>,
}

impl Package {
    /// The names of its member skills: the last part of each folder it lists (a skill's name
    /// is its folder's), in the manifest's order. This is how a store, which keeps skills by
    /// name, knows the members.
    pub fn member_names(&self) -> Vec<String> {
        self.skills
            .iter()
            .map(|folder| member_name(folder).to_owned())
            .collect()
    }

    /// The folder (relative to the package) the manifest lists for the member skill `name`.
    pub fn member_folder(&self, name: &str) -> Option<&str> {
        self.skills
            .iter()
            .find(|folder| member_name(folder) == name)
            .map(String::as_str)
    }
}

/// The skill name of the member folder `folder`: its last part.
fn member_name(folder: &str) -> &str {
    let folder = folder.trim_end_matches('/');
    folder.rsplit('/').next().unwrap_or(folder)
}

/// Whether `dir` is a package folder (it holds a `PACKAGE.md`).
pub fn is_package_folder(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// Reads the manifest `text` (named `path` in diagnostics): the package, when its name could
/// be read, and every problem with the manifest itself.
pub fn read_manifest(
    path: std::path::PathBuf,
    text: String,
) -> (SkillMd, Option<Package>, Vec<Diagnostic>) {
    let manifest = skill_md::parse(path, text, Mode::Spec);
    let mut diagnostics = manifest.diagnostics.clone();
    let file = &manifest.file;
    if manifest.frontmatter.is_none() {
        return (manifest, None, diagnostics);
    }
    let at_start = 0..0;
    let text_of = |key: &str| manifest.text_field(key).map(|text| text.trim().to_owned());
    let name = match text_of("name") {
        Some(name) if is_valid_name(&name) => Some(name),
        other => {
            let range = manifest
                .field("name")
                .map_or(at_start.clone(), |entry| entry.value.range.clone());
            diagnostics.push(
                Diagnostic::error(
                    Code::PackageNameInvalid,
                    match other {
                        Some(name) => format!("package name `{name}` is not kebab-case (at most 64 characters)"),
                        None => "the package has no `name`".to_owned(),
                    },
                )
                .with_hint("name it like a skill: lowercase letters, digits and single hyphens, `dotnet-clean-architecture`")
                .at(file, range),
            );
            None
        }
    };
    let description = text_of("description").filter(|d| !d.is_empty());
    if description.is_none() {
        diagnostics.push(
            Diagnostic::error(Code::PackageFieldInvalid, "the package has no `description`")
                .with_hint("say what the architecture is and when a project should choose it: `analyze_requirements` ranks packages by it")
                .at(file, at_start.clone()),
        );
    }
    let strings = |key: &str, diagnostics: &mut Vec<Diagnostic>| -> Vec<String> {
        let Some(entry) = manifest.field(key) else {
            return Vec::new();
        };
        match &entry.value.kind {
            crate::yaml::NodeKind::Sequence(items) => items
                .iter()
                .filter_map(|item| match item.as_scalar() {
                    Some(scalar) if !scalar.text.trim().is_empty() => {
                        Some(scalar.text.trim().to_owned())
                    }
                    _ => {
                        diagnostics.push(
                            Diagnostic::error(
                                Code::PackageFieldInvalid,
                                format!("each item of `{key}` must be a single value"),
                            )
                            .at(file, item.range.clone()),
                        );
                        None
                    }
                })
                .collect(),
            _ => {
                diagnostics.push(
                    Diagnostic::error(Code::PackageFieldInvalid, format!("`{key}` must be a list"))
                        .with_hint(format!("write `{key}:` and one `- item` per line under it"))
                        .at(file, entry.value.range.clone()),
                );
                Vec::new()
            }
        }
    };
    let tech_stack = strings("tech-stack", &mut diagnostics);
    let skills = strings("skills", &mut diagnostics);
    let docs = strings("docs", &mut diagnostics);
    let layers = read_layers(&manifest, &mut diagnostics);
    let (options, option_diagnostics) = args::parse_params(
        file,
        manifest.field("options").map(|entry| &entry.value),
        Params::Options,
    );
    diagnostics.extend(option_diagnostics);
    for entry in manifest
        .frontmatter
        .as_ref()
        .map_or(&[][..], |node| match &node.kind {
            crate::yaml::NodeKind::Mapping(entries) => entries.as_slice(),
            _ => &[],
        })
    {
        let key = entry
            .key
            .as_scalar()
            .map_or("?", |scalar| scalar.text.as_str());
        if !FIELDS.contains(&key) {
            diagnostics.push(
                Diagnostic::warning(
                    Code::PackageFieldInvalid,
                    format!("unknown package field `{key}`"),
                )
                .with_hint(format!(
                    "package fields are {}",
                    FIELDS.map(|f| format!("`{f}`")).join(", ")
                ))
                .at(file, entry.key.range.clone()),
            );
        }
    }
    for (index, skill) in skills.iter().enumerate() {
        if skills[..index].contains(skill) {
            let range = list_item_range(&manifest, "skills", index);
            diagnostics.push(
                Diagnostic::error(
                    Code::PackageSkillDuplicate,
                    format!("member skill `{skill}` is listed twice"),
                )
                .with_hint("list each member once")
                .at(file, range),
            );
        }
    }
    let package = name.map(|name| Package {
        name,
        description: description.unwrap_or_default(),
        layers,
        tech_stack,
        options,
        skills,
        docs,
    });
    (manifest, package, diagnostics)
}

/// The layers: each a name, or a mapping with `name` and `description`.
fn read_layers(manifest: &SkillMd, diagnostics: &mut Vec<Diagnostic>) -> Vec<Layer> {
    let file = &manifest.file;
    let Some(entry) = manifest.field("layers") else {
        return Vec::new();
    };
    let crate::yaml::NodeKind::Sequence(items) = &entry.value.kind else {
        diagnostics.push(
            Diagnostic::error(Code::PackageFieldInvalid, "`layers` must be a list")
                .with_hint("write one `- name: Domain` (with a `description`) per layer")
                .at(file, entry.value.range.clone()),
        );
        return Vec::new();
    };
    let mut layers = Vec::new();
    for item in items {
        let layer = match item.as_scalar() {
            Some(scalar) => Some(Layer {
                name: scalar.text.trim().to_owned(),
                description: None,
            }),
            None => item
                .get("name")
                .and_then(|name| name.value.as_scalar())
                .map(|name| Layer {
                    name: name.text.trim().to_owned(),
                    description: item
                        .get("description")
                        .and_then(|d| d.value.as_scalar())
                        .map(|d| d.text.trim().to_owned()),
                }),
        };
        match layer.filter(|layer| !layer.name.is_empty()) {
            Some(layer) => layers.push(layer),
            None => diagnostics.push(
                Diagnostic::error(Code::PackageFieldInvalid, "a layer has no `name`")
                    .at(file, item.range.clone()),
            ),
        }
    }
    layers
}

/// The range of item `index` of the list `key`, else of the list.
fn list_item_range(manifest: &SkillMd, key: &str, index: usize) -> std::ops::Range<usize> {
    manifest
        .field(key)
        .map_or(0..0, |entry| match &entry.value.kind {
            crate::yaml::NodeKind::Sequence(items) => items
                .get(index)
                .map_or(entry.value.range.clone(), |item| item.range.clone()),
            _ => entry.value.range.clone(),
        })
}

/// Whether `name` is a package's (or a new skill's) name: kebab-case, ASCII lowercase letters
/// and digits in parts joined by single hyphens, at most 64 characters.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// What only the package folder `dir` can tell of its manifest: every member skill and page is
/// a relative path that stays inside, exists (a folder with a `SKILL.md`; a markdown file),
/// and no member skill's argument shares a placeholder with an option (checked by each
/// member's validation, through its bundle's options).
pub fn check_folder(dir: &Path, manifest: &SkillMd, package: &Package) -> Vec<Diagnostic> {
    let file = &manifest.file;
    let mut out = Vec::new();
    for (index, skill) in package.skills.iter().enumerate() {
        let range = list_item_range(manifest, "skills", index);
        if let Some(why) = outside(skill) {
            out.push(
                Diagnostic::error(
                    Code::PackageSkillMissing,
                    format!("member skill `{skill}` {why}"),
                )
                .with_hint("list member skills as folders inside the package, `skills/add-entity`")
                .at(file, range),
            );
        } else if !dir.join(skill).join("SKILL.md").is_file() {
            out.push(
                Diagnostic::error(
                    Code::PackageSkillMissing,
                    format!("member skill `{skill}` is no folder with a `SKILL.md` in the package"),
                )
                .with_hint("create the skill there (`skillpath new`), or take it out of `skills`")
                .at(file, range),
            );
        }
    }
    for (index, page) in package.docs.iter().enumerate() {
        let range = list_item_range(manifest, "docs", index);
        if let Some(why) = outside(page) {
            out.push(
                Diagnostic::error(
                    Code::PackageDocOutside,
                    format!("documentation page `{page}` {why}"),
                )
                .with_hint("keep the pages inside the package folder, `docs/architecture.md`")
                .at(file, range),
            );
            continue;
        }
        let path = dir.join(page);
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link {
            out.push(
                Diagnostic::error(
                    Code::PackageDocOutside,
                    format!("documentation page `{page}` is a symlink"),
                )
                .with_hint("keep the page itself in the package folder")
                .at(file, range),
            );
        } else if !path.is_file() || !page.ends_with(".md") {
            out.push(
                Diagnostic::error(
                    Code::PackageDocMissing,
                    format!("documentation page `{page}` is no markdown file in the package"),
                )
                .with_hint("write the page there, or take it out of `docs`")
                .at(file, range),
            );
        }
    }
    out
}

/// Why the relative path `path` leaves the package, if it does.
fn outside(path: &str) -> Option<&'static str> {
    if path.starts_with('/') || path.contains('\\') || path.contains(':') {
        Some("must be a relative path with `/` separators")
    } else if path
        .split('/')
        .any(|part| part == ".." || part.is_empty() || part == ".")
    {
        Some("leaves the package folder (`..`, `.` or an empty part)")
    } else {
        None
    }
}

/// The problems of `options` against the arguments of a member skill: one placeholder for
/// an argument and an option (`{EndpointStyle}` of `endpoint_style` and `endpointStyle`).
pub fn collisions(options: &[Arg], arguments: &[Arg]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for option in options {
        let placeholder = option.placeholder();
        if let Some(argument) = arguments
            .iter()
            .find(|argument| argument.placeholder() == placeholder)
        {
            out.push((argument.name.clone(), option.name.clone(), placeholder));
        }
    }
    out
}

/// Adds `options` to a member skill's `arguments`, but those sharing a placeholder with one
/// of its arguments ([`collisions`], which are returned: a validation error of the skill). What
/// a member's tool schema, rendering and validation know as its arguments.
pub fn add_options(arguments: &mut Vec<Arg>, options: &[Arg]) -> Vec<(String, String, String)> {
    let clashes = collisions(options, arguments);
    arguments.extend(
        options
            .iter()
            .filter(|option| !clashes.iter().any(|(_, name, _)| *name == option.name))
            .cloned(),
    );
    clashes
}

/// Most folders up from a skill where its package's manifest is looked for: `pkg/skill` and
/// `pkg/skills/skill` are members; deeper layouts name the package folder.
const MEMBER_DEPTH: usize = 3;

/// The package whose folder holds the skill folder `skill_dir` and whose manifest lists it,
/// if there is one, with the manifest's folder.
pub fn package_of(skill_dir: &Path) -> Option<(std::path::PathBuf, Package)> {
    let real = skill_dir.canonicalize().ok()?;
    for dir in real.ancestors().skip(1).take(MEMBER_DEPTH) {
        if !is_package_folder(dir) {
            continue;
        }
        let (_, package, _) = read_package(dir)?;
        let package = package?;
        let relative = real
            .strip_prefix(dir)
            .ok()?
            .to_string_lossy()
            .replace('\\', "/");
        return package
            .skills
            .iter()
            .any(|member| member.trim_end_matches('/') == relative)
            .then(|| (dir.to_path_buf(), package));
    }
    None
}

/// The manifest of the package folder `dir`, read: `None` when it cannot be read at all.
pub fn read_package(dir: &Path) -> Option<(SkillMd, Option<Package>, Vec<Diagnostic>)> {
    let path = dir.join(MANIFEST);
    let bytes = crate::disk::read_regular(&path, crate::load::DEFAULT_MAX_FILE_SIZE).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(read_manifest(path, text))
}

/// The member skill folders of the package folder `dir` that exist, in the manifest's order.
pub fn member_dirs(dir: &Path) -> Vec<std::path::PathBuf> {
    let Some((_, Some(package), _)) = read_package(dir) else {
        return Vec::new();
    };
    package
        .skills
        .iter()
        .filter(|member| outside(member).is_none())
        .map(|member| dir.join(member))
        .filter(|member| member.join("SKILL.md").is_file())
        .collect()
}

/// The verdict on the package folder `dir`'s manifest, as a validation report of the
/// manifest: every problem of the manifest and of what it lists. Its members are validated
/// as skills, each with the package's options.
pub fn validate_package_dir(dir: &Path) -> crate::validate::report::Report {
    let path = dir.join(MANIFEST);
    let report = |skill_md, diagnostics| crate::validate::report::Report {
        path: dir.to_path_buf(),
        skill_md,
        diagnostics,
    };
    let bytes = match crate::disk::read_regular(&path, crate::load::DEFAULT_MAX_FILE_SIZE) {
        Ok(bytes) => bytes,
        Err(_) => {
            return report(
                None,
                vec![Diagnostic::error(
                    Code::PackageFieldInvalid,
                    format!("`{MANIFEST}` cannot be read: it must be a regular file of at most {} bytes", crate::load::DEFAULT_MAX_FILE_SIZE),
                )
                .in_file(path)],
            );
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return report(
            None,
            vec![
                Diagnostic::error(Code::InvalidUtf8, format!("`{MANIFEST}` is not UTF-8"))
                    .in_file(path),
            ],
        );
    };
    let (manifest, package, mut diagnostics) = read_manifest(path, text);
    if let Some(package) = &package {
        diagnostics.extend(check_folder(dir, &manifest, package));
    }
    diagnostics.sort_by_key(|d| d.location.as_ref().map(|l| (l.start, l.range.end)));
    report(Some(manifest), diagnostics)
}
