//! `skillpath completions SHELL`: the shell completion script, generated from the same clap
//! definitions as `--help`, so it always knows every command and flag.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: CompletionsArgs) -> anyhow::Result<ExitStatus> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "skillpath", &mut script);
    // The generators write the names of our own commands and flags: ASCII.
    output::stdout(&String::from_utf8_lossy(&script))?;
    Ok(ExitStatus::Success)
}
