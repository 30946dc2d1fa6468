//! `skillpath schema`: the JSON Schema of a skill's arguments.

use skillpath_core::golden_path::schema;

use crate::cli::SchemaArgs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: SchemaArgs) -> anyhow::Result<ExitStatus> {
    let Some(skill) = super::render::read_golden(&args.path)? else {
        return Ok(ExitStatus::Invalid);
    };
    let schema = schema::input_schema(&skill.golden.args);
    output::stdout(&format!("{}\n", serde_json::to_string_pretty(&schema)?))?;
    Ok(ExitStatus::Success)
}
