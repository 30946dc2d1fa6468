//! The agents' folders of the user on this machine: where the model's table
//! ([`skillpath_model::agents`]) puts them, read from the environment and the home folder.

use std::path::{Path, PathBuf};

use skillpath_model::agents::{Agent, user_folder_in};

/// Where the user folder `relative` (one of an agent's `user` or `detect` folders) is for the
/// user whose home folder is `home`, with
/// [`MOVED_BY_ENVIRONMENT`](skillpath_model::agents::MOVED_BY_ENVIRONMENT) applied.
pub fn user_folder(relative: &str, home: &Path) -> PathBuf {
    user_folder_in(relative, home, |name| std::env::var_os(name))
}

/// Whether `agent` is installed for the user whose home folder is `home`: one of its
/// `detect` folders exists (an agent that names none always is).
pub fn installed(agent: &Agent, home: &Path) -> bool {
    agent.detect.is_empty()
        || agent
            .detect
            .iter()
            .any(|folder| user_folder(folder, home).is_dir())
}
