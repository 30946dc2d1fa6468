//! `--values FILE`: a project's values for its Golden Path skills, so that an agent without
//! MCP still gets the project's instance of a golden path. The file is TOML, a table per skill
//! with its arguments (`[add-endpoint]` then `EntityName = "Order"`); a skill named there is
//! written with its `SKILL.md` rendered with those values (the frontmatter reduced to `name`
//! and `description`, which agents read, then the rendered body), its other files as they
//! are. A value that is wrong for its argument fails the skill with every problem named, as
//! `skillpath render` does. A member of an architecture package among the skills written takes
//! the package's options as arguments too ([`member_options`]).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use skillpath_core::golden_path::args::Arg;
use skillpath_core::golden_path::{GoldenSkill, render};
use skillpath_core::load::LoadOptions;
use skillpath_core::package;
use skillpath_model::{Kind, SkillSnapshot};
use skillpath_sources::SourceError;

/// The options of the packages among `items`, by the name of each member skill: the arguments
/// a member's table may set besides its own.
pub(crate) fn member_options<'a>(
    items: impl IntoIterator<Item = &'a SkillSnapshot>,
) -> HashMap<String, Vec<Arg>> {
    let mut options = HashMap::new();
    for snapshot in items.into_iter().filter(|s| s.kind == Kind::Package) {
        let (_, manifest, _) =
            package::read_manifest(package::MANIFEST.into(), snapshot.skill_md.clone());
        if let Some(manifest) = manifest {
            for member in manifest.member_names() {
                options.insert(member, manifest.options.clone());
            }
        }
    }
    options
}

/// The values of each skill, by skill name.
#[derive(Debug, Default)]
pub(crate) struct Values(BTreeMap<String, serde_json::Map<String, serde_json::Value>>);

impl Values {
    /// The values in the TOML file at `path`.
    pub(crate) fn read(path: &Path) -> Result<Values, SourceError> {
        let text = std::fs::read_to_string(path).map_err(|e| SourceError::io("read", path, &e))?;
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| SourceError::new(format!("`{}` is not TOML: {e}", path.display())))?;
        let mut values = BTreeMap::new();
        for (skill, arguments) in table {
            let Some(arguments) = arguments.as_table() else {
                return Err(SourceError::new(format!(
                    "`{}`: `{skill}` must be a table of the skill's arguments (`[{skill}]`)",
                    path.display()
                )));
            };
            let json = serde_json::to_value(arguments)
                .ok()
                .and_then(|value| value.as_object().cloned())
                .unwrap_or_default();
            values.insert(skill, json);
        }
        Ok(Values(values))
    }

    /// Whether the file names values for the skill `name`.
    pub(crate) fn names(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// What is written of the skill `name` whose content is `snapshot`: its rendering with its
    /// values (`true`), or the content as it is (`false`) when the file names none for it;
    /// `Err`: why it cannot be rendered.
    pub(crate) fn instance(
        &self,
        name: &str,
        snapshot: SkillSnapshot,
        options: &HashMap<String, Vec<Arg>>,
    ) -> Result<(SkillSnapshot, bool), NotRendered> {
        let options = options.get(name).map_or(&[][..], Vec::as_slice);
        match self.render(name, &snapshot, options)? {
            Some(instance) => Ok((instance, true)),
            None => Ok((snapshot, false)),
        }
    }

    /// `snapshot` of the skill `name` rendered with its values; `Ok(None)` when the file names
    /// no values for it.
    fn render(
        &self,
        name: &str,
        snapshot: &SkillSnapshot,
        options: &[Arg],
    ) -> Result<Option<SkillSnapshot>, NotRendered> {
        let Some(given) = self.0.get(name) else {
            return Ok(None);
        };
        if snapshot.kind == Kind::Package {
            return Err(NotRendered::Package);
        }
        let mut bundle = snapshot.to_bundle(name);
        bundle.package_options = options.to_vec();
        let skill_md = bundle
            .parse_skill_md(LoadOptions::default())
            .map_err(|d| NotRendered::SkillMd(d.message.clone()))?;
        let (golden, diagnostics) = GoldenSkill::read_in(&skill_md, &bundle);
        if let Some(error) = diagnostics.iter().find(|d| d.is_error()) {
            return Err(NotRendered::Arguments(error.message.clone()));
        }
        let rendered = render::render(&skill_md, &golden, &bundle, given)
            .map_err(|e| NotRendered::Render(e.to_string()))?;
        let text = |key: &str| {
            skill_md
                .text_field(key)
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        let quoted = |value: String| serde_json::Value::String(value).to_string();
        let instance = format!(
            "---\nname: {}\ndescription: {}\n---\n{}",
            quoted(text("name")),
            quoted(text("description")),
            rendered.markdown
        );
        SkillSnapshot::new(instance, snapshot.files.clone())
            .map(Some)
            .map_err(|e| NotRendered::Instance(e.to_string()))
    }
}

/// Why a skill cannot be rendered with its values (said after the skill's name).
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotRendered {
    /// Its content cannot be had to render (`install --check`).
    #[error("cannot be read from its source: {0}")]
    Unread(#[from] SourceError),
    /// A package, whose options are its members' to take.
    #[error(
        "cannot be rendered with its values: it is an architecture package: give its options in the tables of its member skills"
    )]
    Package,
    /// Its `SKILL.md` cannot be parsed.
    #[error("cannot be rendered with its values: {0}")]
    SkillMd(String),
    /// Its arguments cannot be read.
    #[error("cannot be rendered with its values: its arguments cannot be read: {0}")]
    Arguments(String),
    /// The values are wrong for its arguments, each problem named.
    #[error("cannot be rendered with its values: {0}")]
    Render(String),
    /// The rendering is no skill the store would keep.
    #[error("cannot be rendered with its values: {0}")]
    Instance(String),
}
