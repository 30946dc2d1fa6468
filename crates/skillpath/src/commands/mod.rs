//! One module per command; each takes its parsed arguments and returns an exit status.

mod catalog;
mod new;
mod read_properties;
mod render;
mod schema;
mod to_prompt;
mod validate;

use crate::cli::{Cli, Command};
use crate::output::ExitStatus;

/// Runs the command the user asked for.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        Command::Validate(args) => validate::run(args),
        Command::ReadProperties(args) => read_properties::run(args),
        Command::ToPrompt(args) => to_prompt::run(args),
        Command::Catalog(args) => catalog::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Render(args) => render::run(args),
        Command::New(args) => new::run(args),
    }
}
