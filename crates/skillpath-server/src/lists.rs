//! The MCP lists of a catalog (tools for each role, resources, prompts, the Skills extension's
//! skills) as entries in listing order, each made into its item only when a page holds it
//! ([`crate::pagination::paginate`]), so that no list of a large catalog is ever held whole;
//! and whether a list differs between two catalogs, told by making only the items of the
//! skills that changed (a skill kept by a reload is the same `Arc`).

use std::sync::Arc;

use rmcp::model::{Resource, Tool};
use skillpath_store::keys::Role as KeyRole;

use crate::builtin::{BUILTINS, Builtin};
use crate::catalog::{Catalog, CatalogSkill};
use crate::resources::{self, ResourceEntry};
use crate::state::SkillServer;
use crate::to_mcp::{skill_prompt, skill_tool};

/// A tool as listed: a built-in one or a skill's.
#[derive(Clone, Copy)]
pub(crate) enum ToolEntry<'a> {
    Builtin(&'static Builtin),
    Skill(&'a str, &'a Arc<CatalogSkill>),
}

impl ToolEntry<'_> {
    /// The tool's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            ToolEntry::Builtin(builtin) => builtin.name(),
            ToolEntry::Skill(name, _) => name,
        }
    }

    /// The tool as clients get it.
    pub(crate) fn tool(self) -> Tool {
        match self {
            ToolEntry::Builtin(builtin) => builtin.tool(),
            ToolEntry::Skill(name, skill) => skill_tool(name, skill),
        }
    }
}

impl SkillServer {
    /// The tools `role` may see, in listing order: built-ins by their role, then the skills'
    /// tools (everyone's).
    pub(crate) fn tools<'a>(
        &self,
        catalog: &'a Catalog,
        role: KeyRole,
    ) -> impl Iterator<Item = ToolEntry<'a>> + 'a {
        let read_only = self.read_only();
        let skills = self.per_skill_tools(catalog);
        BUILTINS
            .iter()
            .filter(move |builtin| !(builtin.writes() && read_only) && builtin.role() <= role)
            .map(ToolEntry::Builtin)
            .chain(
                catalog
                    .tools()
                    .filter(move |_| skills)
                    .map(|(name, skill)| ToolEntry::Skill(name, skill)),
            )
    }

    /// Every resource, in listing order ([`resources::resource`] makes each).
    pub(crate) fn resource_entries<'a>(
        &self,
        catalog: &'a Catalog,
    ) -> impl Iterator<Item = ResourceEntry<'a>> + 'a {
        catalog
            .skills()
            .chain(catalog.packages())
            .flat_map(|skill| skill_resources(skill))
    }

    /// Every prompt's skill, in listing order ([`skill_prompt`] makes each). A skill's prompt is
    /// named as its tool is, by the one tool-name table (`tool_name`, else `name`; see
    /// [`skillpath_core::tool_names`]), so the slash command a user types and the tool the model
    /// calls have one name; a skill that has no tool name of its own has no prompt either (it
    /// stays reachable through `load_skill`), in every tools mode.
    pub(crate) fn prompt_entries<'a>(
        &self,
        catalog: &'a Catalog,
    ) -> impl Iterator<Item = (&'a String, &'a Arc<CatalogSkill>)> + 'a {
        catalog.tools()
    }

    /// Whether the tools a client sees differ between two catalogs. Skills' tools are
    /// everyone's and the built-ins never change between catalogs, so one role's list changes
    /// exactly when every role's does.
    pub(crate) fn tools_differ(&self, before: &Catalog, after: &Catalog) -> bool {
        let per_skill = self.per_skill_tools(after);
        per_skill != self.per_skill_tools(before)
            || (per_skill
                && differ(
                    before.tools(),
                    after.tools(),
                    |(t, s)| skill_tool(t, s),
                    PartialEq::eq,
                ))
    }

    /// Whether the prompts differ between two catalogs.
    pub(crate) fn prompts_differ(&self, before: &Catalog, after: &Catalog) -> bool {
        differ(
            before.tools(),
            after.tools(),
            |(name, skill)| skill_prompt(name, skill),
            PartialEq::eq,
        )
    }

    /// Whether the resources listed differ between two catalogs, in anything but their sizes
    /// (which follow the content; `resources/updated` reports content changes).
    pub(crate) fn resources_differ(&self, before: &Catalog, after: &Catalog) -> bool {
        // Every resource's URI holds its skill's name, so lists of two skills differ.
        differ(
            before
                .skills()
                .chain(before.packages())
                .map(|skill| (&skill.name, skill)),
            after
                .skills()
                .chain(after.packages())
                .map(|skill| (&skill.name, skill)),
            |(_, skill)| {
                skill_resources(skill)
                    .map(resources::resource)
                    .collect::<Vec<_>>()
            },
            |x, y| x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_resource(x, y)),
        )
    }
}

/// The resources of one skill (or package): its manifest, then its files by path.
fn skill_resources(skill: &CatalogSkill) -> impl Iterator<Item = ResourceEntry<'_>> {
    std::iter::once((skill, None)).chain(skill.files.iter().map(move |file| (skill, Some(file))))
}

/// Whether two lists of skills' items differ by `same`: the same skill (one `Arc`, kept by a
/// reload) under the same name makes the same item, so only the others are made and compared.
fn differ<'a, T>(
    before: impl Iterator<Item = (&'a String, &'a Arc<CatalogSkill>)>,
    after: impl Iterator<Item = (&'a String, &'a Arc<CatalogSkill>)>,
    make: impl Fn((&'a String, &'a Arc<CatalogSkill>)) -> T,
    same: impl Fn(&T, &T) -> bool,
) -> bool {
    let (mut before, mut after) = (before, after);
    loop {
        match (before.next(), after.next()) {
            (None, None) => return false,
            (Some(x), Some(y)) if x.0 == y.0 && Arc::ptr_eq(x.1, y.1) => {}
            (Some(x), Some(y)) => {
                if !same(&make(x), &make(y)) {
                    return true;
                }
            }
            _ => return true,
        }
    }
}

/// Whether two resource entries list the same thing: every field but the size, which follows
/// the content (and `resources/updated` reports content changes).
fn same_resource(a: &Resource, b: &Resource) -> bool {
    a.uri == b.uri
        && a.name == b.name
        && a.title == b.title
        && a.description == b.description
        && a.mime_type == b.mime_type
        && a.icons == b.icons
        && a.meta == b.meta
        && a.annotations == b.annotations
}
