//! Skills written from structured data (a [`SkillSpec`]): checked like `skillpath validate`
//! checks a folder, and created, alone or as the member of an architecture package.

use std::path::PathBuf;

use skillpath_core::golden_path::args::Arg;
use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_core::load::LoadOptions;
use skillpath_core::overlap::{COMPETE, Library, Overlap, named};
use skillpath_core::package::spec::PackageSpec;
use skillpath_core::package::{self, Package};
use skillpath_core::validate::{ValidateOptions, validate};
use skillpath_core::{Code, Mode, Severity};
use skillpath_model::{
    Change, Kind, Placement, Provenance, SkillFile, SkillSnapshot, Visibility, namespace_of_key,
};
use skillpath_store::directory::Governance;
use skillpath_store::{StoreError, StoredSkill};

use crate::app::App;
use crate::catalog::{Catalog, Derived};
use crate::error::AppError;
use crate::ops::Written;
use crate::rules::{Operation, Permit};

/// A skill that passed the checks: its warnings, as text (one `- code: message` line each;
/// empty when there are none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The warnings, as text.
    pub warnings: String,
}

/// What `validate_skill` and the studio's check say of a skill that passed.
impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.warnings.is_empty() {
            true => f.write_str("The skill is valid."),
            false => write!(f, "The skill is valid, with warnings:\n{}", self.warnings),
        }
    }
}

/// A skill created or updated: what was written, and the warnings of its checks.
#[derive(Debug)]
pub struct Created {
    /// Stored, or drafted for review.
    pub written: Written,
    /// The checks' warnings ([`Checked`]).
    pub checked: Checked,
}

/// Reads `value` as a skill's structured data: refused when a text or a key holds a NUL
/// character, or when it is not a [`SkillSpec`]'s shape.
pub fn read_spec(value: serde_json::Value) -> Result<SkillSpec, AppError> {
    if let Some(at) = nul_character(&value, "") {
        return Err(AppError::NulCharacter(at));
    }
    serde_json::from_value(value).map_err(AppError::SpecShape)
}

impl<E> App<E> {
    /// `spec` checked as the skill it writes would be stored (its package's options, if it is
    /// a member, and the library's descriptions it would compete with).
    pub fn validate_skill(&self, permit: &Permit, spec: &SkillSpec) -> Result<Checked, AppError> {
        self.permitted(permit, Operation::ValidateSkill)?;
        let catalog = self.catalog();
        let options = options_of(&catalog, &spec.name);
        checked_snapshot(spec, &options, &catalog).map(|(_, checked)| checked)
    }

    /// The package `name` as stored now, for a skill to join: its content and its manifest;
    /// refused, saying what to do, when there is no such package.
    pub async fn package_to_join(&self, name: &str) -> Result<(StoredSkill, Package), AppError> {
        let stored = match self.store().get(name, None).await {
            Ok(stored) if stored.snapshot.kind == Kind::Package && !stored.deleted => stored,
            Ok(stored) => {
                return Err(AppError::NotAPackage {
                    name: name.to_owned(),
                    is_skill: stored.snapshot.kind == Kind::Skill,
                });
            }
            Err(StoreError::NotFound { .. }) => {
                return Err(AppError::NotAPackage {
                    name: name.to_owned(),
                    is_skill: false,
                });
            }
            Err(error) => return Err(AppError::Store(error)),
        };
        let (_, manifest, _) =
            package::read_manifest(package::MANIFEST.into(), stored.snapshot.skill_md.clone());
        let manifest = manifest.ok_or_else(|| AppError::UnreadableManifest(name.to_owned()))?;
        Ok((stored, manifest))
    }
}

impl<E: Derived> App<E> {
    /// The skill `spec` writes, created in `placement`'s namespace with its visibility
    /// (drafted for review where the caller's writes there are), as a member of `package` when
    /// given (then in the package's namespace): checked against the package's options as they
    /// are now, it joins the package at that revision (drafted, at whatever revision it has
    /// when published).
    pub async fn create_skill(
        &self,
        permit: &Permit,
        spec: &SkillSpec,
        package: Option<&str>,
        placement: Placement,
    ) -> Result<Created, AppError> {
        let caller = self.permitted(permit, Operation::CreateSkill)?;
        let placement = match package {
            Some(package) => {
                self.seen(caller, package).await?;
                Placement {
                    visibility: placement.visibility,
                    ..Placement::beside(package)
                }
            }
            None => placement,
        };
        let drafted = self.write_gate(caller, &placement.namespace).await?;
        let message = format!("create {}", spec.name);
        let catalog = self.catalog();
        let (snapshot, checked, joined) = match package {
            None => {
                let (snapshot, checked) = checked_snapshot(spec, &[], &catalog)?;
                (snapshot, checked, None)
            }
            Some(name) => {
                let (package, manifest) = self.package_to_join(name).await?;
                let (snapshot, checked) = checked_snapshot(spec, &manifest.options, &catalog)?;
                (snapshot, checked, Some((name, package.revision)))
            }
        };
        if drafted {
            let draft = (snapshot, 0, package.map(str::to_owned));
            let saved = self
                .save_draft(caller, draft, placement.namespace, message)
                .await?;
            return Ok(Created {
                written: Written::Drafted(saved),
                checked,
            });
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let store = self.store();
        let stored = match joined {
            None => {
                store
                    .create_in(placement, snapshot, Provenance::Api, change)
                    .await?
            }
            Some(package) => {
                let (created, _) = store
                    .create_member(snapshot, Provenance::Api, package, change)
                    .await?;
                if placement.visibility != Visibility::default() {
                    let visibility = Governance::SetVisibility {
                        key: created.name.clone(),
                        visibility: placement.visibility,
                    };
                    store.govern(visibility, &caller.author()).await?;
                }
                created
            }
        };
        self.refresh().await?;
        Ok(Created {
            written: Written::Stored(stored),
            checked,
        })
    }
}

impl<E: Derived> App<E> {
    /// The skill `name` rewritten from `spec` (the fields the caller changed merged into the
    /// revision `expected` they read, or into their own draft made on it), checked as
    /// [`App::create_skill`] checks, and written as its next revision (drafted for review
    /// where the caller's writes are).
    pub async fn update_skill(
        &self,
        permit: &Permit,
        name: &str,
        expected: u64,
        spec: &SkillSpec,
    ) -> Result<Created, AppError> {
        let caller = self.permitted(permit, Operation::UpdateSkill)?;
        let drafted = self.item_gate(caller, name).await?;
        let catalog = self.catalog();
        let options = options_of(&catalog, name);
        let (snapshot, checked) = checked_snapshot(spec, &options, &catalog)?;
        let message = format!("update {name}");
        if drafted {
            let namespace = namespace_of_key(name);
            let saved = self
                .save_draft(caller, (snapshot, expected, None), namespace, message)
                .await?;
            return Ok(Created {
                written: Written::Drafted(saved),
                checked,
            });
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let stored = self
            .store()
            .update(name, expected, snapshot, change)
            .await?;
        self.refresh().await?;
        Ok(Created {
            written: Written::Stored(stored),
            checked,
        })
    }
}

impl<E: Derived> App<E> {
    /// The architecture package `spec` writes (its manifest and documentation pages), created
    /// (drafted for review where the caller's writes are).
    pub async fn create_architecture(
        &self,
        permit: &Permit,
        spec: &PackageSpec,
        placement: Placement,
    ) -> Result<Written, AppError> {
        let caller = self.permitted(permit, Operation::CreateArchitecture)?;
        let drafted = self.write_gate(caller, &placement.namespace).await?;
        let written = spec.write().map_err(AppError::UnwritablePackage)?;
        let files = written
            .docs
            .into_iter()
            .map(|page| SkillFile {
                path: page.path,
                bytes: page.content.into_bytes(),
            })
            .collect();
        let snapshot = SkillSnapshot::package(written.manifest, files)
            .map_err(|error| AppError::Snapshot(error.into()))?;
        let message = format!("create architecture {}", spec.name);
        if drafted {
            let saved = self
                .save_draft(caller, (snapshot, 0, None), placement.namespace, message)
                .await?;
            return Ok(Written::Drafted(saved));
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let stored = self
            .store()
            .create_in(placement, snapshot, Provenance::Api, change)
            .await?;
        self.refresh().await?;
        Ok(Written::Stored(stored))
    }
}

/// The options of the package the skill `name` is a member of, in `catalog` (none when it is
/// no member): what its arguments must not collide with.
fn options_of<E>(catalog: &Catalog<E>, name: &str) -> Vec<Arg> {
    catalog
        .skill(name)
        .and_then(|skill| skill.package.as_ref())
        .and_then(|membership| catalog.package(&membership.package))
        .and_then(|package| package.manifest.as_ref())
        .map_or_else(Vec::new, |manifest| manifest.options.clone())
}

/// Writes `spec` as a skill and validates it in memory like `skillpath validate` (spec mode,
/// lints), as the member of a package with `options` when it is one, and against the skills of
/// `library` whose descriptions its own would compete with (`description-overlap`): errors
/// refuse it; warnings come back as text.
fn checked_snapshot<E>(
    spec: &SkillSpec,
    options: &[Arg],
    library: &Catalog<E>,
) -> Result<(SkillSnapshot, Checked), AppError> {
    let written = spec.write().map_err(AppError::Unwritable)?;
    let files: Vec<SkillFile> = written
        .files
        .iter()
        .map(|f| SkillFile {
            path: f.path.clone(),
            bytes: f.content.clone().into_bytes(),
        })
        .collect();
    let snapshot = SkillSnapshot::new(written.skill_md, files)
        .map_err(|error| AppError::Snapshot(error.into()))?;
    // Validated in memory, in a folder named as the skill; messages name files as the skill
    // knows them (`SKILL.md`, `templates/x.cs`), so the bundle is shown at no path.
    let mut bundle = snapshot.to_bundle(&spec.name);
    bundle.display_path = PathBuf::new();
    bundle.package_options = options.to_vec();
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
        return Err(AppError::Invalid(errors));
    }
    let mut warnings = describe(Severity::Warning);
    let competing = competing(spec, library);
    let (shown, more) = named(&competing);
    for overlap in shown {
        warnings.push_str(&format!(
            "- {}: {}; {}\n",
            Code::DescriptionOverlap,
            overlap.sentence(&spec.name),
            overlap.hint()
        ));
    }
    if more > 0 {
        warnings.push_str(&format!(
            "- {}: {}\n",
            Code::DescriptionOverlap,
            Overlap::more(&spec.name, more)
        ));
    }
    Ok((snapshot, Checked { warnings }))
}

/// The skills of `library` (packages and `spec` itself left out) whose descriptions `spec`'s
/// would compete with.
fn competing<E>(spec: &SkillSpec, library: &Catalog<E>) -> Vec<Overlap> {
    let skills = Library::new(
        library
            .skills()
            .filter(|skill| skill.kind == Kind::Skill)
            .map(|skill| (skill.name.as_str(), skill.description.as_str())),
    );
    skills.competing(&spec.name, &spec.description, COMPETE)
}

/// Where in `value` (a key path such as `phases[0].content`) a string or key holds a NUL
/// character, which no skill text needs: YAML cannot hold it unescaped, and PostgreSQL cannot
/// store it at all. Recursion is bounded by JSON's own nesting limit (128).
fn nul_character(value: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
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
