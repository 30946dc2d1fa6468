//! Exit codes and writing to stdout/stderr.

use std::io::{self, Write};
use std::process::ExitCode;

/// What the process exit code means, for every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitStatus {
    /// 0: everything asked for was done and every skill is valid.
    Success,
    /// 1: a skill is invalid or could not be read.
    Invalid,
    /// 2: the command line was wrong (or skillpath itself failed).
    UsageOrInternal,
}

impl ExitStatus {
    /// The number the process exits with.
    pub(crate) fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Invalid => 1,
            ExitStatus::UsageOrInternal => 2,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(status.code())
    }
}

/// Writes `text` to stdout as one locked write.
pub(crate) fn stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes `text` to stderr as one locked write.
pub(crate) fn stderr(text: &str) -> io::Result<()> {
    let mut err = io::stderr().lock();
    err.write_all(text.as_bytes())?;
    err.flush()
}

/// `one` when `n` is 1, else `many`: "1 skill", "2 skills".
pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
