//! The skill format: reading, checking and describing agent skills.
//!
//! A skill is a folder with a `SKILL.md`: YAML frontmatter between `---` lines, then markdown.
//! This crate parses it ([`skill_md::parse`], [`load::load_skill_md`]) into a YAML tree with
//! source ranges, validates it in one of three [`Mode`]s ([`validate::validate_dir`] for a
//! folder, [`validate::validate`] for a skill's files in memory, a
//! [`bundle::SkillBundle`]) producing [`Diagnostic`]s with stable codes, and builds the
//! catalog an agent puts in its prompt ([`catalog`]). It also reproduces the reference
//! validator's outputs ([`skills_ref`]).
//!
//! It is pure and synchronous: no database, no network, no async runtime, no CLI types. The only
//! I/O is reading a skill's files from disk.
//!
//! ```
//! use skillpath_core::{Mode, skill_md};
//!
//! let text = "---\nname: pdf\ndescription: Fill PDF forms. Use when the user has a PDF.\n---\n# PDF\n";
//! let skill = skill_md::parse("pdf/SKILL.md".into(), text.into(), Mode::Spec);
//! assert!(skill.diagnostics.is_empty());
//! assert_eq!(skill.body(), "# PDF\n");
//! ```

pub mod bundle;
pub mod catalog;
pub mod claude_args;
pub mod diagnostic;
mod disk;
pub mod frontmatter;
pub mod golden_path;
pub mod load;
mod mode;
pub mod overlap;
pub mod package;
pub mod pathlib;
pub mod python_unicode;
pub mod render_diagnostics;
pub mod skill_files;
pub mod skill_md;
pub mod skills_ref;
pub mod source;
pub mod tool_names;
pub mod validate;
pub mod walk;
pub mod yaml;

pub use diagnostic::{Code, Diagnostic, Location, Severity, SourceFile};
pub use mode::Mode;
