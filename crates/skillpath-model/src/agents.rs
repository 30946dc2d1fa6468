//! The agents skillpath knows, in one table: each agent's id (the one the `skills` CLI and
//! `gh skill` name it by on the command line), its name, and the skill folders it reads in a
//! project and in the user's home folder, its own first. Discovery searches every folder of
//! the table, in the table's order ([`PROJECT_LOCATIONS`], [`USER_LOCATIONS`]), so every folder
//! an agent reads skillpath reads too, and the README's lists are made from this table. Where a
//! user folder is on a machine (the home folder, the environment) is read by
//! `skillpath-folders`; the rule that places it is [`user_folder_in`].

use std::sync::LazyLock;

/// An agent and where it reads skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    /// Its id on the command line (`claude-code`, `codex`, …).
    pub id: &'static str,
    /// Its name, for people.
    pub name: &'static str,
    /// The skill folders it reads in a project, relative to the project folder, its own first.
    pub project: &'static [&'static str],
    /// The skill folders it reads of the user, relative to the home folder, its own first.
    pub user: &'static [&'static str],
    /// Folders of the user's (relative to the home folder, resolved as [`user_folder_in`] does)
    /// whose presence says the agent is installed; none: always counted as installed.
    pub detect: &'static [&'static str],
}

/// Every agent, in the order its folders take precedence in discovery: the cross-client
/// folder first, then the agents whose folders skillpath has searched longest, then the rest.
pub const AGENTS: &[Agent] = &[
    Agent {
        id: "universal",
        name: "Cross-client `.agents/skills`",
        project: &[".agents/skills"],
        user: &[".agents/skills"],
        detect: &[],
    },
    Agent {
        id: "claude-code",
        name: "Claude Code",
        project: &[".claude/skills"],
        user: &[".claude/skills"],
        detect: &[".claude"],
    },
    Agent {
        id: "github-copilot",
        name: "GitHub Copilot (VS Code, CLI)",
        project: &[".github/skills", ".agents/skills"],
        user: &[".copilot/skills"],
        detect: &[".copilot", ".vscode"],
    },
    Agent {
        id: "cursor",
        name: "Cursor",
        project: &[".cursor/skills", ".agents/skills"],
        user: &[".cursor/skills"],
        detect: &[".cursor"],
    },
    Agent {
        id: "codex",
        name: "Codex",
        project: &[".agents/skills", ".codex/skills"],
        user: &[".codex/skills"],
        detect: &[".codex"],
    },
    Agent {
        id: "gemini-cli",
        name: "Gemini CLI",
        project: &[".agents/skills", ".gemini/skills"],
        user: &[".gemini/skills"],
        detect: &[".gemini"],
    },
    Agent {
        id: "opencode",
        name: "OpenCode",
        project: &[".agents/skills", ".opencode/skills"],
        user: &[".config/opencode/skills"],
        detect: &[".config/opencode"],
    },
    Agent {
        id: "amp",
        name: "Amp",
        project: &[".agents/skills"],
        user: &[".config/agents/skills"],
        detect: &[".config/amp"],
    },
    Agent {
        id: "goose",
        name: "Goose",
        project: &[".goose/skills"],
        user: &[".config/goose/skills"],
        detect: &[".config/goose"],
    },
    Agent {
        id: "windsurf",
        name: "Windsurf",
        project: &[".windsurf/skills"],
        user: &[".codeium/windsurf/skills"],
        detect: &[".codeium/windsurf"],
    },
    Agent {
        id: "cline",
        name: "Cline",
        project: &[".agents/skills"],
        user: &[".agents/skills"],
        detect: &[".cline"],
    },
    Agent {
        id: "roo",
        name: "Roo Code",
        project: &[".roo/skills"],
        user: &[".roo/skills"],
        detect: &[".roo"],
    },
    Agent {
        id: "kiro-cli",
        name: "Kiro",
        project: &[".kiro/skills"],
        user: &[".kiro/skills"],
        detect: &[".kiro"],
    },
    Agent {
        id: "junie",
        name: "Junie",
        project: &[".junie/skills"],
        user: &[".junie/skills"],
        detect: &[".junie"],
    },
    Agent {
        id: "openhands",
        name: "OpenHands",
        project: &[".openhands/skills"],
        user: &[".openhands/skills"],
        detect: &[".openhands"],
    },
];

/// The agent with the id `id`.
pub fn agent(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|agent| agent.id == id)
}

/// Where agents' configuration folders are moved by an environment variable: a user folder
/// under the first (relative to the home folder) is under the variable's value when it is set
/// to an absolute path (`CLAUDE_CONFIG_DIR=/x` puts `.claude/skills` at `/x/skills`).
pub const MOVED_BY_ENVIRONMENT: &[(&str, &str)] = &[
    (".claude", "CLAUDE_CONFIG_DIR"),
    (".codex", "CODEX_HOME"),
    (".config", "XDG_CONFIG_HOME"),
];

/// Where the user folder `relative` (one of an agent's `user` or `detect` folders) is for the
/// user whose home folder is `home`, with [`MOVED_BY_ENVIRONMENT`] applied, the environment's
/// variables read by `env`.
pub fn user_folder_in(
    relative: &str,
    home: &std::path::Path,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> std::path::PathBuf {
    for (prefix, variable) in MOVED_BY_ENVIRONMENT {
        let rest = if relative == *prefix {
            Some("")
        } else {
            relative
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_prefix('/'))
        };
        if let Some(rest) = rest
            && let Some(value) = env(variable).map(std::path::PathBuf::from)
            && value.is_absolute()
        {
            return if rest.is_empty() {
                value
            } else {
                value.join(rest)
            };
        }
    }
    home.join(relative)
}

/// Every folder of `folders` of every agent, each once, in the table's order.
pub fn every_folder(folders: fn(&Agent) -> &'static [&'static str]) -> Vec<&'static str> {
    let mut every: Vec<&'static str> = Vec::new();
    for agent in AGENTS {
        for &folder in folders(agent) {
            if !every.contains(&folder) {
                every.push(folder);
            }
        }
    }
    every
}

/// Where agents look for project skills, relative to each project folder, in precedence order:
/// every project folder of [`AGENTS`], once, in the table's order (the cross-client
/// `.agents/skills` first).
pub static PROJECT_LOCATIONS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| every_folder(|agent| agent.project));

/// Where agents look for the user's skills, relative to the home folder, in precedence order:
/// every user folder of [`AGENTS`], once, in the table's order; an agent's environment
/// variable moves its folders ([`user_folder_in`]). Folders outside the home folder
/// (`/etc/codex/skills`) can still be imported by naming them.
pub static USER_LOCATIONS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| every_folder(|agent| agent.user));

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are unique and are those the `skills` CLI uses; every folder is a relative path
    /// ending in `skills`; each agent names at least one folder of each scope.
    #[test]
    fn the_table_is_well_formed() {
        let mut ids: Vec<&str> = AGENTS.iter().map(|agent| agent.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), AGENTS.len(), "duplicate ids");
        for agent in AGENTS {
            assert!(
                !agent.project.is_empty() && !agent.user.is_empty(),
                "{agent:?}"
            );
            for folder in agent.project.iter().chain(agent.user) {
                assert!(
                    folder.ends_with("/skills")
                        && !folder.starts_with('/')
                        && !folder.contains(".."),
                    "{folder}"
                );
            }
        }
        for id in [
            "claude-code",
            "codex",
            "cursor",
            "github-copilot",
            "gemini-cli",
            "opencode",
            "goose",
            "amp",
            "windsurf",
            "cline",
            "roo",
            "kiro-cli",
            "junie",
            "openhands",
            "universal",
        ] {
            assert!(agent(id).is_some(), "{id}");
        }
    }

    /// `CLAUDE_CONFIG_DIR`, `CODEX_HOME` and `XDG_CONFIG_HOME` move the folders under them,
    /// and only when they are absolute.
    #[test]
    fn environment_variables_move_user_folders() {
        let home = std::path::Path::new("/home/me");
        let env = |name: &str| match name {
            "CLAUDE_CONFIG_DIR" => Some("/opt/claude".into()),
            "XDG_CONFIG_HOME" => Some("/xdg".into()),
            "CODEX_HOME" => Some("relative".into()),
            _ => None,
        };
        let at = |relative| user_folder_in(relative, home, env);
        assert_eq!(
            at(".claude/skills"),
            std::path::Path::new("/opt/claude/skills")
        );
        assert_eq!(at(".claude"), std::path::Path::new("/opt/claude"));
        assert_eq!(
            at(".config/opencode/skills"),
            std::path::Path::new("/xdg/opencode/skills")
        );
        assert_eq!(
            at(".codex/skills"),
            std::path::Path::new("/home/me/.codex/skills")
        );
        assert_eq!(
            at(".claudex/skills"),
            std::path::Path::new("/home/me/.claudex/skills")
        );
    }

    /// Discovery's folders are every agent's, each once, the cross-client one first; the
    /// folders skillpath searched before the table keep their order.
    #[test]
    fn discovery_reads_every_folder_of_the_table_once() {
        let project = every_folder(|agent| agent.project);
        let user = every_folder(|agent| agent.user);
        assert_eq!(
            project[..7],
            [
                ".agents/skills",
                ".claude/skills",
                ".github/skills",
                ".cursor/skills",
                ".codex/skills",
                ".gemini/skills",
                ".opencode/skills"
            ]
        );
        for agent in AGENTS {
            for folder in agent.project {
                assert_eq!(
                    project.iter().filter(|f| *f == folder).count(),
                    1,
                    "{folder}"
                );
            }
            for folder in agent.user {
                assert!(user.contains(folder), "{folder}");
            }
        }
        assert_eq!(user[0], ".agents/skills");
    }
}
