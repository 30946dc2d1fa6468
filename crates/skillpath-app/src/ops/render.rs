//! A skill rendered with the arguments a caller gives: what its tool, its prompt and
//! `load_skill` answer, within the render limits the server was started with.

use skillpath_core::claude_args::ClaudeArgs;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::render;

use crate::app::App;
use crate::catalog::CatalogSkill;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

impl<E> App<E> {
    /// The markdown of `skill` rendered with `arguments`, within [`crate::AppOptions`]'s
    /// render limits: its content from the cache (else the store), a Golden Path skill's
    /// placeholders and templates filled, a plain skill written for Claude Code its
    /// `$ARGUMENTS` placeholders. Arguments that do not fit the skill's parameters (a limit
    /// among them) are [`AppError::Render`].
    pub async fn render(
        &self,
        permit: &Permit,
        skill: &CatalogSkill<E>,
        arguments: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<String, AppError> {
        self.permitted(permit, Operation::LoadSkill)?;
        let limits = &self.options().render_limits;
        let content = self.content(skill).await?;
        if let Some(claude) = ClaudeArgs::read(&content.skill_md) {
            return Ok(claude.render(&content.skill_md, arguments, limits)?);
        }
        let files = content.files();
        // A member skill renders with its package's options among its arguments (the
        // catalog's, made from the package it was loaded with).
        let member;
        let golden = if skill.package.is_some() {
            member = GoldenSkill {
                args: skill.args.clone(),
                ..content.golden.clone()
            };
            &member
        } else {
            &content.golden
        };
        let rendered = render::render_within(&content.skill_md, golden, &files, arguments, limits)?;
        Ok(rendered.markdown)
    }
}
