//! The command line of releases: `release`, `releases`, `yank` and `tag`.

use clap::Args;
use skillpath_model::release::{Version, parse_version};

use super::people::FormatArgs;

/// A version as typed (`1.4.0`, `v2.0.0-beta.1`).
pub(crate) fn version(text: &str) -> Result<Version, String> {
    parse_version(text).map_err(|error| error.to_string())
}

/// A channel as typed: `head`, or a tag.
pub(crate) fn channel(text: &str) -> Result<skillpath_app::Channel, String> {
    skillpath_app::Channel::parse(text).map_err(|error| error.to_string())
}

#[derive(Debug, Args)]
pub(crate) struct ReleaseArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    /// The version: semver 2.0, higher than the highest release of its major line.
    #[arg(value_name = "VERSION", value_parser = version)]
    pub(crate) semver: Version,
    /// The revision to release [default: the current one].
    #[arg(long, value_name = "N")]
    pub(crate) revision: Option<u64>,
    /// What changed, for whom (the changelog).
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub(crate) notes: String,
    /// A tag to point at the release (`stable`, `beta`; `latest` to set it by hand); repeat it
    /// for more.
    #[arg(long = "tag", value_name = "TAG")]
    pub(crate) tags: Vec<String>,
    /// Release it though it breaks the version rules (lower than its line's highest, or
    /// arguments that break calls in a minor or patch release), for this reason, which the
    /// governance log records.
    #[arg(long, value_name = "REASON", conflicts_with = "decline")]
    pub(crate) force: Option<String>,
    /// Decline the release of VERSION an author proposed, for this reason (shown in the
    /// governance log), instead of releasing it. A release of a proposed version without
    /// `--revision`, `--notes` or `--tag` takes the proposal's.
    #[arg(long, value_name = "REASON")]
    pub(crate) decline: Option<String>,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ReleasesArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct YankArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    /// The release's version.
    #[arg(value_name = "VERSION", value_parser = version)]
    pub(crate) semver: Version,
    /// Why: shown to whoever installs it by a lock that pins it.
    #[arg(long, value_name = "REASON")]
    pub(crate) reason: String,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}

#[derive(Debug, Args)]
pub(crate) struct TagArgs {
    /// The item: `@namespace/name`, or a name alone for `@global`.
    #[arg(value_name = "ITEM")]
    pub(crate) item: String,
    /// The tag: `stable`, `beta`, `canary`, … (`latest` sets it by hand: a rollback).
    #[arg(value_name = "TAG")]
    pub(crate) tag: String,
    /// The release it points at.
    #[arg(value_name = "VERSION", value_parser = version, required_unless_present = "remove")]
    pub(crate) semver: Option<Version>,
    /// Take the tag away instead (`latest` then follows the highest release again).
    #[arg(long, conflicts_with = "semver")]
    pub(crate) remove: bool,
    #[command(flatten)]
    pub(crate) common: FormatArgs,
}
