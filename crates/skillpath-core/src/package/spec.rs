//! A package as structured data ([`PackageSpec`]), what `create_architecture` takes: written as
//! a canonical `PACKAGE.md` and its documentation pages, and checked by the manifest's own
//! rules ([`super::read_manifest`]) so that what is written reads back as given.

use std::fmt::Write as _;

use super::{Layer, MANIFEST, Package, outside, read_manifest};
use crate::golden_path::args::{Arg, Params};
use crate::golden_path::spec::{SpecError, TemplateFile, scalar, write_param};

/// A package, structured.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PackageSpec {
    /// kebab-case.
    pub name: String,
    /// What the architecture is and when a project should choose it.
    pub description: String,
    /// The layers, in order.
    #[serde(default)]
    pub layers: Vec<LayerSpec>,
    /// The tech stack.
    #[serde(default)]
    pub tech_stack: Vec<String>,
    /// The configuration options, each with a default.
    #[serde(default)]
    pub options: Vec<Arg>,
    /// The member skills' folders, relative to the package (`skills/add-entity`).
    #[serde(default)]
    pub skills: Vec<String>,
    /// The documentation pages: markdown files relative to the package, with their text.
    #[serde(default)]
    pub docs: Vec<TemplateFile>,
    /// The markdown after the frontmatter: the architecture's overview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overview: Option<String>,
}

/// One layer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LayerSpec {
    /// Its name (`Domain`).
    pub name: String,
    /// What belongs in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A package as written: its `PACKAGE.md` and its pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenPackage {
    /// The manifest.
    pub manifest: String,
    /// The documentation pages.
    pub docs: Vec<TemplateFile>,
}

impl PackageSpec {
    /// Writes the canonical `PACKAGE.md` and the pages, refused with every problem the
    /// manifest's rules find (a name that is not kebab-case, an option without a default or
    /// outside its values, a page outside the package or not markdown, a member listed twice).
    pub fn write(&self) -> Result<WrittenPackage, SpecError> {
        let overview = match &self.overview {
            Some(text) => format!("\n{}\n", text.trim_end()),
            None => format!("\n# {}\n", crate::golden_path::spec::title_case(&self.name)),
        };
        let manifest = format!("{}{overview}", self.frontmatter());
        let mut problems: Vec<String> = Vec::new();
        let (_, package, diagnostics) = read_manifest(MANIFEST.into(), manifest.clone());
        problems.extend(
            diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| format!("{}: {}", d.code, d.message)),
        );
        if package.is_none() && problems.is_empty() {
            problems.push("the package cannot be read back".to_owned());
        }
        for page in &self.docs {
            if let Some(why) = outside(&page.path) {
                problems.push(format!("documentation page `{}` {why}", page.path));
            } else if !page.path.ends_with(".md") {
                problems.push(format!(
                    "documentation page `{}` is not markdown (`.md`)",
                    page.path
                ));
            }
        }
        for (index, page) in self.docs.iter().enumerate() {
            if self.docs[..index]
                .iter()
                .any(|other| other.path == page.path)
            {
                problems.push(format!("documentation page `{}` is given twice", page.path));
            }
        }
        if !problems.is_empty() {
            return Err(SpecError(problems.join("; ")));
        }
        Ok(WrittenPackage {
            manifest,
            docs: self.docs.clone(),
        })
    }

    /// The frontmatter, `---` to `---` and its line end.
    fn frontmatter(&self) -> String {
        let mut out = String::from("---\n");
        let _ = writeln!(out, "name: {}", scalar(&self.name));
        let _ = writeln!(out, "description: {}", scalar(&self.description));
        if !self.layers.is_empty() {
            out.push_str("layers:\n");
            for layer in &self.layers {
                let _ = writeln!(out, "  - name: {}", scalar(&layer.name));
                if let Some(description) = &layer.description {
                    let _ = writeln!(out, "    description: {}", scalar(description));
                }
            }
        }
        write_list(
            &mut out,
            "tech-stack",
            self.tech_stack.iter().map(String::as_str),
        );
        if !self.options.is_empty() {
            out.push_str("options:\n");
            for option in &self.options {
                write_param(&mut out, option, Params::Options);
            }
        }
        write_list(&mut out, "skills", self.skills.iter().map(String::as_str));
        write_list(
            &mut out,
            "docs",
            self.docs.iter().map(|page| page.path.as_str()),
        );
        out.push_str("---\n");
        out
    }

    /// The spec of `package` (its pages given by path only, without their text).
    pub fn of(package: &Package) -> PackageSpec {
        PackageSpec {
            name: package.name.clone(),
            description: package.description.clone(),
            layers: package
                .layers
                .iter()
                .map(|Layer { name, description }| LayerSpec {
                    name: name.clone(),
                    description: description.clone(),
                })
                .collect(),
            tech_stack: package.tech_stack.clone(),
            options: package.options.clone(),
            skills: package.skills.clone(),
            docs: package
                .docs
                .iter()
                .map(|path| TemplateFile {
                    path: path.clone(),
                    content: String::new(),
                })
                .collect(),
            overview: None,
        }
    }
}

/// Writes the field `key` as a list of `items`, one per line; nothing when there are none.
fn write_list<'a>(out: &mut String, key: &str, items: impl Iterator<Item = &'a str>) {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return;
    }
    let _ = writeln!(out, "{key}:");
    for item in items {
        let _ = writeln!(out, "  - {}", scalar(item));
    }
}

/// The manifest `text` with the member skill folder `folder` added to its `skills`: its
/// frontmatter written again in the canonical form (as [`PackageSpec::write`] writes it), the
/// overview after it kept byte for byte. Refused when the manifest cannot be read as a package
/// or already lists a member of that name.
pub fn with_member(text: &str, folder: &str) -> Result<String, SpecError> {
    let (_, package, _) = read_manifest(MANIFEST.into(), text.to_owned());
    let package = package.ok_or_else(|| {
        SpecError("the package's manifest cannot be read; fix it before adding skills".to_owned())
    })?;
    if let Some(why) = outside(folder) {
        return Err(SpecError(format!("member folder `{folder}` {why}")));
    }
    let name = super::member_name(folder);
    if package.member_names().iter().any(|member| member == name) {
        return Err(SpecError(format!(
            "package `{}` lists the skill `{name}` already",
            package.name
        )));
    }
    let mut spec = PackageSpec::of(&package);
    spec.skills.push(folder.to_owned());
    let overview = &text[crate::frontmatter::head(text).len()..];
    Ok(format!("{}{overview}", spec.frontmatter()))
}

/// The manifest `text` of a package forked as `name`, its members renamed by `member` (a
/// member's name to its fork's, each listed in the member's folder renamed alike): what the
/// fork of a package is written with, its overview kept byte for byte.
pub fn forked(
    text: &str,
    name: &str,
    member: impl Fn(&str) -> String,
) -> Result<String, SpecError> {
    let (_, package, _) = read_manifest(MANIFEST.into(), text.to_owned());
    let package = package.ok_or_else(|| {
        SpecError("the package's manifest cannot be read; fix it before forking it".to_owned())
    })?;
    let mut spec = PackageSpec::of(&package);
    spec.name = name.to_owned();
    for folder in &mut spec.skills {
        let trimmed = folder.trim_end_matches('/');
        let parent = &trimmed[..trimmed.len() - super::member_name(trimmed).len()];
        *folder = format!("{parent}{}", member(super::member_name(trimmed)));
    }
    let overview = &text[crate::frontmatter::head(text).len()..];
    Ok(format!("{}{overview}", spec.frontmatter()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_path::args::ArgType;

    fn spec() -> PackageSpec {
        PackageSpec {
            name: "go-service".to_owned(),
            description: "A Go HTTP service with chi and sqlc. Use for backend services in Go."
                .to_owned(),
            layers: vec![LayerSpec {
                name: "Handlers".to_owned(),
                description: Some("HTTP handlers: decode, call, encode".to_owned()),
            }],
            tech_stack: vec!["Go 1.23".to_owned(), "chi".to_owned()],
            options: vec![Arg {
                name: "routerStyle".to_owned(),
                description: Some("How routes are grouped".to_owned()),
                required: false,
                arg_type: ArgType::String,
                allowed: Some(vec!["flat".to_owned(), "nested".to_owned()]),
                default: Some("flat".to_owned()),
            }],
            skills: Vec::new(),
            docs: vec![TemplateFile {
                path: "docs/layout.md".to_owned(),
                content: "# Layout\n".to_owned(),
            }],
            overview: Some("# Go service\n\nOne binary per service.".to_owned()),
        }
    }

    #[test]
    fn a_spec_is_written_and_reads_back_as_given() {
        let written = spec().write().expect("valid");
        let (_, package, diagnostics) = read_manifest(MANIFEST.into(), written.manifest.clone());
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let package = package.expect("a package");
        let mut back = PackageSpec::of(&package);
        back.docs = written.docs.clone();
        back.overview = spec().overview;
        assert_eq!(back, spec());
        assert!(
            written
                .manifest
                .ends_with("\n# Go service\n\nOne binary per service.\n")
        );
    }

    #[test]
    fn a_spec_breaking_the_manifests_rules_is_refused_with_every_problem() {
        let mut bad = spec();
        bad.name = "Go Service".to_owned();
        bad.options[0].default = Some("deep".to_owned());
        bad.docs.push(TemplateFile {
            path: "../outside.md".to_owned(),
            content: String::new(),
        });
        let error = bad.write().expect_err("refused").0;
        for expected in ["kebab-case", "`deep`", "../outside.md"] {
            assert!(error.contains(expected), "{expected}: {error}");
        }
    }

    #[test]
    fn a_member_is_added_keeping_the_overview_byte_for_byte() {
        let written = spec().write().expect("valid");
        let with = with_member(&written.manifest, "skills/add-handler").expect("added");
        let (_, package, _) = read_manifest(MANIFEST.into(), with.clone());
        assert_eq!(package.expect("package").skills, ["skills/add-handler"]);
        assert!(with.ends_with("\n# Go service\n\nOne binary per service.\n"));
        let error = with_member(&with, "other/add-handler").expect_err("twice");
        assert!(error.0.contains("already"), "{error}");
        assert!(with_member(&with, "../x").is_err());
    }
}
