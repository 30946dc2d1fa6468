//! The `skillpath` command: parse, validate and describe agent skills.
//!
//! This crate is glue: argument parsing (`cli`), one module per command (`commands`), and the
//! mapping of outcomes to exit codes. The format itself lives in `skillpath-core`.

mod cli;
mod commands;
mod error;
mod inputs;
mod logging;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    logging::init(cli.log_level);
    match commands::run(cli) {
        Ok(status) => status.into(),
        Err(error) => {
            // A closed pipe (`skillpath validate -r . | head`) is not a failure.
            if error.chain().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  Caused by: {cause}");
            }
            output::ExitStatus::UsageOrInternal.into()
        }
    }
}
