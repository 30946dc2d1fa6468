//! What the server keeps for asking users (MCP elicitation, see [`crate::elicitation`]): when it
//! asks, how long a form waits, the key that seals request states, and the forms waiting now.
//! The server's state holds it; the asking itself, which needs the server, lives apart in
//! [`crate::elicitation`], so the state does not import it back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::Serialize;

/// When the server asks the user for argument values (`skillpath serve --elicit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ElicitMode {
    /// Never: a call with problems gets them as an error result.
    Never,
    /// For required arguments missing and values that are wrong (the default).
    #[default]
    Missing,
    /// Also for every optional argument the call left out, for skills that ask for it
    /// (`metadata: {elicit: optional}`).
    Always,
}

/// The default time a user has to answer a form: a person reads, thinks and types.
pub const DEFAULT_ELICIT_TIMEOUT: Duration = Duration::from_secs(600);

/// The fewest bytes a `--request-state-key` file holds.
pub const MIN_STATE_KEY_BYTES: usize = RequestStateCodec::MIN_KEY_LENGTH;

/// The server's side of asking: how, the key that seals request states, and the forms
/// waiting for an answer now.
pub(crate) struct Elicitation {
    pub(crate) mode: ElicitMode,
    pub(crate) timeout: Duration,
    pub(crate) codec: RequestStateCodec,
    pub(crate) waiting: Arc<AtomicUsize>,
}

impl Elicitation {
    /// Asking in `mode`, forms answered within `timeout`, request states sealed with `key`
    /// (at least [`MIN_STATE_KEY_BYTES`]; else a random key of this process).
    pub(crate) fn new(mode: ElicitMode, timeout: Duration, key: Option<&[u8]>) -> Elicitation {
        let key = match key {
            Some(key) if key.len() >= MIN_STATE_KEY_BYTES => key.to_vec(),
            _ => {
                let mut random = vec![0u8; MIN_STATE_KEY_BYTES];
                // Without the system's randomness the key is still unknown to clients: the
                // time and the process id, mixed by the HMAC, are not theirs to choose.
                if getrandom::fill(&mut random).is_err() {
                    let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
                    for (byte, seed) in random.iter_mut().zip(seed.bytes().cycle()) {
                        *byte ^= seed;
                    }
                }
                random
            }
        };
        // The key has the codec's minimum length, checked or made above.
        let codec = RequestStateCodec::new_unchecked(key);
        Elicitation {
            mode,
            timeout,
            codec,
            waiting: Arc::default(),
        }
    }

    /// `state` sealed for the call `binding` names, to be opened by [`Elicitation::open`]
    /// until the timeout passes.
    pub(crate) fn seal(&self, state: &impl Serialize, binding: &[u8]) -> Result<String, McpError> {
        self.codec
            .seal_json_with(
                state,
                &SealOptions::new()
                    .associated_data(binding)
                    .ttl(self.timeout),
            )
            .map_err(|error| McpError::internal_error(error.to_string(), None))
    }

    /// The state `sealed` holds, when this server sealed it for the call `binding` names;
    /// `None` once it has expired (the user took longer than the timeout). A state this server
    /// did not seal for this call is the protocol error that says so.
    pub(crate) fn open<T: serde::de::DeserializeOwned>(
        &self,
        sealed: &str,
        binding: &[u8],
    ) -> Result<Option<T>, McpError> {
        match self.codec.open_json_with(sealed, binding) {
            Ok(state) => Ok(Some(state)),
            Err(RequestStateError::Expired) => Ok(None),
            Err(error) => Err(McpError::invalid_params(
                format!(
                    "the `requestState` of this call does not check ({error}): it was changed or \
                     made for another call; call again without `requestState` and \
                     `inputResponses`"
                ),
                None,
            )),
        }
    }

    /// How many `elicitation/create` requests wait for their answer now.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }
}

/// A form waiting for its answer, counted for as long as it lives.
pub(crate) struct Waiting(Arc<AtomicUsize>);

impl Waiting {
    pub(crate) fn start(count: &Arc<AtomicUsize>) -> Waiting {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(Arc::clone(count))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
