//! The MCP lists of a catalog (tools for each role, resources, prompts), each built on first
//! use and kept with the catalog, so that paging through one is linear and a list is compared
//! with the last catalog's in place.

use rmcp::model::{Prompt, Resource, Tool};
use skillpath_store::keys::Role as KeyRole;

use crate::builtin::BUILTINS;
use crate::catalog::Catalog;
use crate::resources;
use crate::state::SkillServer;
use crate::to_mcp::{skill_prompt, skill_tool};

impl SkillServer {
    /// The tools `role` may see, in listing order: built-ins by their role, then the skills'
    /// tools (everyone's). Built once per catalog and role, since clients page through it.
    pub(crate) fn tools<'a>(&self, catalog: &'a Catalog, role: KeyRole) -> &'a [Tool] {
        catalog.lists.tools[role as usize].get_or_init(|| {
            let mut tools: Vec<Tool> = BUILTINS
                .iter()
                .filter(|builtin| !(builtin.writes && self.read_only()) && builtin.role <= role)
                .map(|builtin| builtin.tool())
                .collect();
            if self.per_skill_tools(catalog) {
                tools.extend(catalog.tools().map(|(name, skill)| skill_tool(name, skill)));
            }
            tools
        })
    }

    /// Every resource, in listing order. Built once per catalog.
    pub(crate) fn resource_list<'a>(&self, catalog: &'a Catalog) -> &'a [Resource] {
        catalog
            .lists
            .resources
            .get_or_init(|| resources::list(catalog))
    }

    /// Every prompt, in listing order. Built once per catalog. A skill's prompt is named as
    /// its tool is, by the one tool-name table (`tool_name`, else `name`; see
    /// [`skillpath_core::tool_names`]), so the slash command a user types and the tool the model
    /// calls have one name; a skill that has no tool name of its own has no prompt either (it
    /// stays reachable through `load_skill`), in every tools mode.
    pub(crate) fn prompt_list<'a>(&self, catalog: &'a Catalog) -> &'a [Prompt] {
        catalog.lists.prompts.get_or_init(|| {
            catalog
                .tools()
                .map(|(name, skill)| skill_prompt(name, skill))
                .collect()
        })
    }
}
