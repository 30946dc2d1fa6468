//! Releases and channels: a semver version names one revision of an item, immutably; a tag
//! (`latest`, `stable`, `beta`, …) points at one release and moves only when someone moves it.
//! What revisions say is *what changed*; releases say *what is ready for whom*.
//!
//! The rules here are pure and shared: which new versions an item may take
//! ([`check_new_version`]), where a tag points ([`tag_target`]), and which release a request
//! (`1.2.3`, `^1.2`, `beta`) resolves to ([`resolve`]). Versions follow semver 2.0 (the
//! `semver` crate): build metadata does not count in precedence, so `1.0.0+a` and `1.0.0+b` are
//! one version. Ranges are written as npm writes them ([`Range`]).

use std::cmp::Ordering;
use std::fmt;

pub use semver::Version;

/// The tag that names the highest release that is not a pre-release, unless set by hand.
pub const LATEST: &str = "latest";

/// The channel that serves every item's current revision, released or not (for authors).
pub const HEAD: &str = "head";

/// The longest tag name.
pub const MOST_TAG_CHARS: usize = 64;

/// A release: an item's revision named by a version, with a changelog and its author.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Release {
    /// The item's store key.
    pub item: String,
    /// Its version.
    #[serde(serialize_with = "as_text")]
    pub version: Version,
    /// The revision it names.
    pub revision: u64,
    /// What changed, for whom.
    pub notes: String,
    /// Who released it.
    pub author: String,
    /// When (RFC 3339).
    pub created_at: String,
    /// Whether, why and when it was yanked: hidden from resolution, kept for locks that pin it.
    pub yanked: Option<Yanked>,
}

/// A release an author asked for where their namespace reviews what authors write: it names
/// a revision and a version as a release would, and waits for a maintainer, who releases it
/// (the proposal is then the release) or declines it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Proposal {
    /// The item's store key.
    pub item: String,
    /// The version asked for.
    #[serde(serialize_with = "as_text")]
    pub version: Version,
    /// The revision it names.
    pub revision: u64,
    /// What changed, for whom.
    pub notes: String,
    /// The tags to point at the release once it is made.
    pub tags: Vec<String>,
    /// Who asked for it.
    pub author: String,
    /// When (RFC 3339).
    pub created_at: String,
}

/// Why and when a release was yanked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Yanked {
    /// Why, as its yanker said.
    pub reason: String,
    /// Who yanked it.
    pub by: String,
    /// When (RFC 3339).
    pub at: String,
}

/// A tag set by hand: a channel of an item pointing at one of its releases.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Tag {
    /// The item's store key.
    pub item: String,
    /// The tag's name.
    pub name: String,
    /// The release's version.
    #[serde(serialize_with = "as_text")]
    pub version: Version,
    /// Who set it last.
    pub set_by: String,
    /// When (RFC 3339).
    pub set_at: String,
}

fn as_text<S: serde::Serializer>(version: &Version, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(version)
}

/// Whether `a` and `b` are one version: equal but for build metadata.
pub fn same_version(a: &Version, b: &Version) -> bool {
    a.cmp_precedence(b) == Ordering::Equal
}

/// `version` without its build metadata, which does not count in precedence: what a version
/// is kept unique by.
pub fn without_build(version: &Version) -> Version {
    Version {
        build: semver::BuildMetadata::EMPTY,
        ..version.clone()
    }
}

/// The version `text` names (a leading `v` allowed), or why it is none.
pub fn parse_version(text: &str) -> Result<Version, NotAVersion> {
    let trimmed = text.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    Version::parse(bare).map_err(|error| NotAVersion {
        text: text.to_owned(),
        why: error.to_string(),
    })
}

/// A text that is no semver version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a semver version ({why}): write MAJOR.MINOR.PATCH, e.g. `1.4.0` or `2.0.0-beta.1`"
)]
pub struct NotAVersion {
    /// The text.
    pub text: String,
    /// What the parser said.
    pub why: String,
}

/// Why an item cannot take a new version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReleasable {
    /// The version was released already (perhaps yanked since): versions are never reused.
    #[error("{version} was released already{}: a version is never reused, so release the next one", if *.yanked { " (and yanked)" } else { "" })]
    Exists {
        /// The version asked for.
        version: Version,
        /// Whether the release is yanked.
        yanked: bool,
    },
    /// The version is not higher than the highest release of its major line.
    #[error(
        "{version} is not higher than {highest}, the highest release of the {line}.x line: release a higher version, or force it with a reason"
    )]
    NotHigher {
        /// The version asked for.
        version: Version,
        /// The highest release of its line.
        highest: Version,
        /// Its major version.
        line: u64,
    },
}

/// Whether an item whose releases are `releases` may take `version`: not released before
/// (yanked releases count), and higher than the highest release of its major line (so a patch
/// for an older line is allowed). A forced release skips the second rule, never the first.
pub fn check_new_version<'a>(
    releases: impl IntoIterator<Item = &'a Release>,
    version: &Version,
    forced: bool,
) -> Result<(), NotReleasable> {
    let mut highest: Option<&Version> = None;
    for release in releases {
        if same_version(&release.version, version) {
            return Err(NotReleasable::Exists {
                version: version.clone(),
                yanked: release.yanked.is_some(),
            });
        }
        if release.version.major == version.major
            && highest.is_none_or(|h| release.version.cmp_precedence(h) == Ordering::Greater)
        {
            highest = Some(&release.version);
        }
    }
    match highest {
        Some(highest) if !forced && version.cmp_precedence(highest) != Ordering::Greater => {
            Err(NotReleasable::NotHigher {
                version: version.clone(),
                highest: highest.clone(),
                line: version.major,
            })
        }
        _ => Ok(()),
    }
}

/// Why a text is no tag name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a tag name: a tag is lowercase letters, digits, `-`, `_` and `.`, starting with a letter, at most 64 characters, and not a version range (`beta`, `stable`, `canary`)"
)]
pub struct NotATag(pub String);

/// `text` as a tag name: lowercase ASCII letters, digits, `-`, `_` and `.`, a letter first, at
/// most [`MOST_TAG_CHARS`]; not [`HEAD`] (a channel, not a tag), and not a text that reads as
/// a range (so that `name@TEXT` means one thing).
pub fn check_tag(text: &str) -> Result<(), NotATag> {
    let well_formed = !text.is_empty()
        && text.len() <= MOST_TAG_CHARS
        && text.starts_with(|c: char| c.is_ascii_lowercase())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
    if well_formed && text != HEAD && Range::parse(text).is_err() {
        Ok(())
    } else {
        Err(NotATag(text.to_owned()))
    }
}

/// The release `tag` points at among `releases` (one item's) and its hand-set `tags`: the
/// tag's release; for [`LATEST`] not set by hand, the highest release that is neither a
/// pre-release nor yanked. `None` when there is none.
pub fn tag_target<'a>(releases: &'a [Release], tags: &[Tag], tag: &str) -> Option<&'a Release> {
    if let Some(set) = tags.iter().find(|set| set.name == tag) {
        return releases
            .iter()
            .find(|release| same_version(&release.version, &set.version));
    }
    if tag != LATEST {
        return None;
    }
    highest(
        releases
            .iter()
            .filter(|release| release.yanked.is_none() && release.version.pre.is_empty()),
    )
}

/// The highest of `releases` by precedence.
fn highest<'a>(releases: impl Iterator<Item = &'a Release>) -> Option<&'a Release> {
    releases.max_by(|a, b| a.version.cmp_precedence(&b.version))
}

/// What someone asks to install: an exact version, a range, or a tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// This version, yanked or not (what a lock pins).
    Exact(Version),
    /// The highest release in the range that is not yanked.
    Range(Range),
    /// Where the tag points.
    Tag(String),
}

impl Request {
    /// The request `text` says: a version, else a range, else a tag.
    pub fn parse(text: &str) -> Result<Request, NotARequest> {
        if let Ok(version) = parse_version(text) {
            return Ok(Request::Exact(version));
        }
        if let Ok(range) = Range::parse(text) {
            return Ok(Request::Range(range));
        }
        check_tag(text)
            .map(|()| Request::Tag(text.to_owned()))
            .map_err(|_| NotARequest(text.to_owned()))
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Exact(version) => write!(f, "{version}"),
            Request::Range(range) => f.write_str(&range.text),
            Request::Tag(tag) => f.write_str(tag),
        }
    }
}

/// A text that is no version, range or tag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is no version (`1.2.3`), range (`^1.2`, `~1.2.0`, `>=1.0 <2`) or tag (`latest`, `beta`)"
)]
pub struct NotARequest(pub String);

/// Why a request resolves to no release.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unresolved {
    /// No release has the version.
    #[error("there is no release {0}")]
    NoVersion(Version),
    /// No release (that is not yanked) is in the range.
    #[error("no release satisfies `{range}`{}", highest_said(.highest))]
    NoneInRange {
        /// The range.
        range: String,
        /// The highest release there is, to say what there is instead.
        highest: Option<Version>,
    },
    /// The tag points at nothing.
    #[error("no release is tagged `{0}`")]
    NoTag(String),
}

fn highest_said(highest: &Option<Version>) -> String {
    highest.as_ref().map_or_else(String::new, |version| {
        format!(" (the highest release is {version})")
    })
}

/// The release `request` resolves to among one item's `releases` and `tags`. An exact version
/// resolves even when yanked (a lock that pinned it keeps working; the caller says so); a range
/// only to releases that are not yanked.
pub fn resolve<'a>(
    releases: &'a [Release],
    tags: &[Tag],
    request: &Request,
) -> Result<&'a Release, Unresolved> {
    match request {
        Request::Exact(version) => releases
            .iter()
            .find(|release| same_version(&release.version, version))
            .ok_or_else(|| Unresolved::NoVersion(version.clone())),
        Request::Range(range) => highest(
            releases
                .iter()
                .filter(|release| release.yanked.is_none() && range.matches(&release.version)),
        )
        .ok_or_else(|| Unresolved::NoneInRange {
            range: range.text.clone(),
            highest: highest(releases.iter().filter(|r| r.yanked.is_none()))
                .map(|release| release.version.clone()),
        }),
        Request::Tag(tag) => {
            tag_target(releases, tags, tag).ok_or_else(|| Unresolved::NoTag(tag.clone()))
        }
    }
}

/// A version range as npm writes it: comparator sets joined by `||`, each a list of
/// comparators separated by spaces (`>=1.2.0 <2.0.0`), with npm's shorthands: `^1.2`,
/// `~1.2.3`, x-ranges (`1.2.x`, `1.*`, `*`, `1.2`), hyphen ranges (`1.2 - 1.4`), and a bare
/// full version meaning exactly it. Each set becomes a `semver::VersionReq` (Cargo's syntax,
/// which differs from npm's in that a bare version means `^`, comparators are separated by
/// commas, and there is neither `||` nor the hyphen range); pre-releases match as npm matches
/// them (only where a comparator of the set names the same `major.minor.patch` with a
/// pre-release).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// The range as written.
    pub text: String,
    /// Its comparator sets, any of which a version satisfies.
    sets: Vec<semver::VersionReq>,
}

/// A text that is no range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a version range ({why})")]
pub struct NotARange {
    /// The text.
    pub text: String,
    /// Why.
    pub why: String,
}

impl Range {
    /// The range `text` writes, in npm's syntax.
    pub fn parse(text: &str) -> Result<Range, NotARange> {
        let fail = |why: String| NotARange {
            text: text.to_owned(),
            why,
        };
        let sets = text
            .split("||")
            .map(|set| {
                let cargo = cargo_set(set).map_err(&fail)?;
                semver::VersionReq::parse(&cargo).map_err(|error| fail(error.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Range {
            text: text.trim().to_owned(),
            sets,
        })
    }

    /// Whether `version` satisfies it.
    pub fn matches(&self, version: &Version) -> bool {
        self.sets.iter().any(|set| set.matches(version))
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One npm comparator set as Cargo's comparators, comma-separated.
fn cargo_set(set: &str) -> Result<String, String> {
    let set = set.trim();
    if set.is_empty() {
        return Ok("*".to_owned());
    }
    // A hyphen range: `A - B`, the spaces around the hyphen required (as npm requires them).
    if let Some((low, high)) = set.split_once(" - ") {
        let (low, high) = (partial(low.trim())?, partial(high.trim())?);
        let low = if low.is_empty() {
            "*".to_owned()
        } else {
            format!(">={}", low.join("."))
        };
        let high = if high.is_empty() {
            return Ok(low);
        } else {
            format!("<={}", high.join("."))
        };
        return Ok(if low == "*" {
            high
        } else {
            format!("{low}, {high}")
        });
    }
    // Operators may stand apart from their versions (`>= 1.2.0`): join them first.
    let mut comparators: Vec<String> = Vec::new();
    let mut pending = String::new();
    for token in set.split_whitespace() {
        if token
            .chars()
            .all(|c| matches!(c, '<' | '>' | '=' | '~' | '^'))
        {
            pending.push_str(token);
            continue;
        }
        comparators.push(comparator(&format!("{pending}{token}"))?);
        pending.clear();
    }
    if !pending.is_empty() {
        return Err(format!("`{pending}` has no version after it"));
    }
    Ok(comparators.join(", "))
}

/// One npm comparator as Cargo writes it.
fn comparator(text: &str) -> Result<String, String> {
    let operator_end = text
        .find(|c: char| !matches!(c, '<' | '>' | '=' | '~' | '^'))
        .unwrap_or(text.len());
    let (operator, version) = text.split_at(operator_end);
    let operator = match operator {
        "~>" => "~",
        other => other,
    };
    if !matches!(operator, "" | "=" | "<" | "<=" | ">" | ">=" | "~" | "^") {
        return Err(format!("`{operator}` is no comparison"));
    }
    let version = version.strip_prefix('v').unwrap_or(version);
    // The version's parts up to a wildcard, with what follows the patch (pre-release, build).
    let (core, rest) = match version.find(['-', '+']) {
        Some(at) => version.split_at(at),
        None => (version, ""),
    };
    let parts = partial(core)?;
    if parts.is_empty() {
        // `*`, `x`, `>=*`: every version (npm: `<*` matches none, and Cargo has no such).
        return match operator {
            "<" | ">" => Err("a comparison with `*` matches no version".to_owned()),
            _ => Ok("*".to_owned()),
        };
    }
    let written = format!("{}{rest}", parts.join("."));
    Ok(match (operator, parts.len()) {
        // A bare full version is exactly it in npm (in Cargo it would be `^`).
        ("" | "=", 3) => format!("={written}"),
        // A bare partial version is an x-range: `1.2` is `1.2.*`.
        ("" | "=", _) => format!("{written}.*"),
        (operator, _) => format!("{operator}{written}"),
    })
}

/// The numeric parts of a (partial) version, up to its first wildcard (`x`, `X`, `*`), at most
/// three: `1.2.x` is `["1", "2"]`, `*` is none.
fn partial(core: &str) -> Result<Vec<String>, String> {
    let mut parts = Vec::new();
    for part in core.split('.') {
        if matches!(part, "x" | "X" | "*") {
            break;
        }
        if part.is_empty() || !part.chars().all(|c| c.is_ascii_digit()) {
            return Err(format!("`{core}` is no version"));
        }
        parts.push(part.to_owned());
    }
    if parts.len() > 3 {
        return Err(format!("`{core}` has more than three numbers"));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).expect("a version")
    }

    fn release(version: &str, yanked: bool) -> Release {
        Release {
            item: "deploy".to_owned(),
            version: v(version),
            revision: 1,
            notes: String::new(),
            author: "ann".to_owned(),
            created_at: "2026-12-06T00:00:00Z".to_owned(),
            yanked: yanked.then(|| Yanked {
                reason: "broken".to_owned(),
                by: "ann".to_owned(),
                at: "2026-12-06T00:00:00Z".to_owned(),
            }),
        }
    }

    #[test]
    fn new_versions_climb_their_major_line_and_are_never_reused() {
        let releases = [
            release("1.4.0", false),
            release("2.0.0", false),
            release("2.1.0", true),
        ];
        assert_eq!(check_new_version(&releases, &v("2.2.0"), false), Ok(()));
        assert_eq!(check_new_version(&releases, &v("1.4.1"), false), Ok(()));
        assert_eq!(
            check_new_version(&releases, &v("3.0.0-beta.1"), false),
            Ok(())
        );
        assert!(matches!(
            check_new_version(&releases, &v("2.1.0+build.7"), true),
            Err(NotReleasable::Exists { yanked: true, .. })
        ));
        let lower = check_new_version(&releases, &v("1.3.9"), false);
        assert!(
            matches!(&lower, Err(NotReleasable::NotHigher { highest, line: 1, .. }) if *highest == v("1.4.0")),
            "{lower:?}"
        );
        assert_eq!(check_new_version(&releases, &v("1.3.9"), true), Ok(()));
        assert!(check_new_version(&releases, &v("2.1.0-rc.1"), false).is_err());
    }

    #[test]
    fn latest_is_the_highest_stable_release_unless_set_by_hand() {
        let releases = [
            release("1.0.0", false),
            release("1.1.0", true),
            release("1.2.0-beta.1", false),
        ];
        let latest = tag_target(&releases, &[], LATEST).map(|r| r.version.to_string());
        assert_eq!(latest.as_deref(), Some("1.0.0"));
        let tags = [Tag {
            item: "deploy".to_owned(),
            name: LATEST.to_owned(),
            version: v("1.2.0-beta.1"),
            set_by: "ann".to_owned(),
            set_at: String::new(),
        }];
        let latest = tag_target(&releases, &tags, LATEST).map(|r| r.version.to_string());
        assert_eq!(latest.as_deref(), Some("1.2.0-beta.1"));
        assert!(tag_target(&releases, &tags, "beta").is_none());
    }

    #[test]
    fn requests_are_versions_ranges_or_tags() {
        assert_eq!(Request::parse("1.2.3"), Ok(Request::Exact(v("1.2.3"))));
        assert!(matches!(Request::parse("^1.2"), Ok(Request::Range(_))));
        assert!(matches!(Request::parse("1.2"), Ok(Request::Range(_))));
        assert!(matches!(
            Request::parse(">=1.0.0 <2"),
            Ok(Request::Range(_))
        ));
        assert_eq!(Request::parse("beta"), Ok(Request::Tag("beta".to_owned())));
        assert!(Request::parse("Beta!").is_err());
        assert!(check_tag("head").is_err());
        assert!(check_tag("x").is_err(), "an x-range");
        let releases = [
            release("1.2.0", false),
            release("1.3.0", true),
            release("2.0.0", false),
        ];
        let resolved = |text: &str| {
            resolve(&releases, &[], &Request::parse(text).expect("a request"))
                .map(|release| release.version.to_string())
        };
        assert_eq!(resolved("^1.2").as_deref(), Ok("1.2.0"));
        assert_eq!(
            resolved("1.3.0").as_deref(),
            Ok("1.3.0"),
            "pinned, though yanked"
        );
        assert_eq!(resolved("latest").as_deref(), Ok("2.0.0"));
        let none = resolved("^3").expect_err("none");
        assert_eq!(
            none.to_string(),
            "no release satisfies `^3` (the highest release is 2.0.0)"
        );
    }

    /// npm's syntax as Cargo's comparators, for each shorthand.
    #[test]
    fn npm_ranges_become_cargo_comparators() {
        for (npm, cargo) in [
            ("1.2.3", "=1.2.3"),
            ("1.2", "1.2.*"),
            ("1.x", "1.*"),
            ("*", "*"),
            ("", "*"),
            (">= 1.2.0 < 2", ">=1.2.0, <2"),
            ("~1.2.x", "~1.2"),
            ("^0.x", "^0"),
            ("1.2 - 2.3.4", ">=1.2, <=2.3.4"),
            ("v1.2.3", "=1.2.3"),
            ("^1.2.3-beta.2", "^1.2.3-beta.2"),
        ] {
            assert_eq!(cargo_set(npm).as_deref(), Ok(cargo), "{npm}");
        }
        assert!(Range::parse("1.2.3.4").is_err());
        assert!(Range::parse(">=").is_err());
        assert!(Range::parse("abc").is_err());
    }
}
