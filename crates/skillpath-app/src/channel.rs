//! Channels: which revision of each item a server serves. `head` serves every item's current
//! revision (for authors); a tag (`latest`, the default, or `stable`, `beta`, …) serves each
//! item at the release its tag points at, falling back to `latest`, and, for an item without
//! releases, to its current revision, as before releases were. Moving a tag changes what the
//! channel serves at once, on every replica: the catalog is reloaded as after any write.

use std::fmt;

use skillpath_model::release::{self, HEAD, LATEST, NotATag, Release};
use skillpath_store::directory::Directory;

/// What a server serves of each item.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Every item's current revision.
    Head,
    /// The release a tag points at (else `latest`'s, else the current revision).
    Tag(String),
}

impl Default for Channel {
    /// `latest`: the highest release of each item, its current revision until it has one.
    fn default() -> Self {
        Channel::Tag(LATEST.to_owned())
    }
}

impl Channel {
    /// The channel `text` names: `head`, or a tag.
    pub fn parse(text: &str) -> Result<Channel, NotATag> {
        if text == HEAD {
            return Ok(Channel::Head);
        }
        release::check_tag(text).map(|()| Channel::Tag(text.to_owned()))
    }

    /// The release of the item kept under `key` this channel serves, if it serves one (an
    /// item without releases, or `head`, is served at its current revision).
    pub fn release_of<'a>(&self, key: &str, directory: &'a Directory) -> Option<&'a Release> {
        let Channel::Tag(tag) = self else {
            return None;
        };
        let releases = directory.releases_of(key);
        let tags = directory.tags_of(key);
        release::tag_target(releases, tags, tag)
            .or_else(|| release::tag_target(releases, tags, LATEST))
    }

    /// The revision of the item kept under `key`, currently at `current`, this channel serves.
    pub fn revision_of(&self, key: &str, current: u64, directory: &Directory) -> u64 {
        self.release_of(key, directory)
            .map_or(current, |release| release.revision)
    }
}

/// `head`, or the tag's name.
impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Head => f.write_str(HEAD),
            Channel::Tag(tag) => f.write_str(tag),
        }
    }
}
