//! Will the right skill be chosen? An agent picks a skill by its description among all the
//! others it sees, so a skill is only as good as its ranking against the whole library. This
//! crate measures that offline, without a model:
//!
//! - [`cases`]: the queries to try, read from a skill's `evals/trigger-evals.json` (the
//!   skill-creator format, `[{query, should_trigger}]`) or a library-level file of
//!   `[{query, skill|null}]`, every bad row refused with its file and row;
//! - [`score`]: given the ranking of each query (the caller runs the same search the server
//!   uses), recall@1/@3/@5 and reciprocal rank per skill, its false triggers, the skills that
//!   beat it, and the library's most-confused pairs;
//! - `overlap`: pairs of skills whose descriptions compete for the same requests, with the
//!   words they share.
//!
//! Pure and synchronous: it reads bytes it is given and ranks nothing itself, so the binary
//! runs the store's own search and a test can hand it rankings.

pub mod cases;
pub mod score;
