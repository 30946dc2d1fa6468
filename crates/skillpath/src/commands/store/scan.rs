//! `skillpath scan`: what discovery finds in the standard skill folders, where from, and what
//! is shadowed.

use std::fmt::Write as _;
use std::path::PathBuf;

use skillpath_store::discovery::{self, DiscoveryLimits};

use super::{print, table};
use crate::cli::ScanArgs;
use crate::output::ExitStatus;

pub(crate) fn run(args: ScanArgs) -> anyhow::Result<ExitStatus> {
    let project = match args.project {
        Some(project) => project,
        None => std::env::current_dir()?,
    };
    let home = if args.no_user {
        None
    } else {
        std::env::var_os("HOME").map(PathBuf::from)
    };
    let found = discovery::discover(Some(&project), home.as_deref(), DiscoveryLimits::default());
    let json = serde_json::to_value(&found)?;
    print(args.format, &json, || {
        let rows: Vec<Vec<String>> = found
            .skills
            .iter()
            .map(|skill| {
                vec![
                    skill.name.clone(),
                    skill.scope.as_str().to_owned(),
                    skill.path.display().to_string(),
                ]
            })
            .collect();
        let mut text = if rows.is_empty() {
            "no skills found in the standard skill folders\n".to_owned()
        } else {
            table(&["NAME", "SCOPE", "PATH"], &rows)
        };
        for shadowed in &found.shadowed {
            let _ = writeln!(
                text,
                "shadowed: `{}` at `{}` ({}) by `{}` ({})",
                shadowed.found.name,
                shadowed.found.path.display(),
                shadowed.found.scope.as_str(),
                shadowed.by.path.display(),
                shadowed.by.scope.as_str()
            );
        }
        for (path, why) in &found.skipped {
            let _ = writeln!(text, "skipped: `{}`: {why}", path.display());
        }
        let searched: Vec<String> = found
            .searched
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let _ = writeln!(
            text,
            "searched: {}",
            if searched.is_empty() {
                "no skill folders exist".to_owned()
            } else {
                searched.join(", ")
            }
        );
        text
    })?;
    Ok(ExitStatus::Success)
}
