//! Bounds on one render ([`RenderLimits`]) and what a render in progress may still produce.

/// Bounds on one render, so that no call can make a server build more than a skill needs:
/// a value of 7 MB, or a 1 KB value in a million placeholders, is refused with the limit named
/// before the output grows past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderLimits {
    /// The longest argument value, in bytes.
    pub max_value_bytes: usize,
    /// The largest rendered markdown, in bytes.
    pub max_output_bytes: usize,
    /// The most placeholders substituted in one render.
    pub max_substitutions: usize,
}

impl Default for RenderLimits {
    /// 64 KiB per value, 4 MiB of output, 100,000 substitutions: the largest skill of the
    /// corpus renders well within them, with every value a page of text.
    fn default() -> Self {
        RenderLimits {
            max_value_bytes: 64 * 1024,
            max_output_bytes: 4 * 1024 * 1024,
            max_substitutions: 100_000,
        }
    }
}

/// Which of the [`RenderLimits`] a render reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    /// [`RenderLimits::max_output_bytes`].
    Output,
    /// [`RenderLimits::max_substitutions`].
    Substitutions,
}

/// What a render may still produce.
pub(crate) struct Budget {
    bytes: usize,
    substitutions: usize,
}

impl Budget {
    pub(crate) fn new(limits: &RenderLimits) -> Budget {
        Budget {
            bytes: limits.max_output_bytes,
            substitutions: limits.max_substitutions,
        }
    }

    /// No bounds (for texts whose size is already bounded).
    pub(crate) fn unbounded() -> Budget {
        Budget {
            bytes: usize::MAX,
            substitutions: usize::MAX,
        }
    }

    /// Appends `text` to `out`, unless that would pass the output bound.
    pub(crate) fn push(&mut self, out: &mut String, text: &str) -> Result<(), Exceeded> {
        self.bytes = self.bytes.checked_sub(text.len()).ok_or(Exceeded::Output)?;
        out.push_str(text);
        Ok(())
    }

    /// Counts one substitution, unless that would pass the bound.
    pub(crate) fn substitution(&mut self) -> Result<(), Exceeded> {
        self.substitutions = self
            .substitutions
            .checked_sub(1)
            .ok_or(Exceeded::Substitutions)?;
        Ok(())
    }
}
