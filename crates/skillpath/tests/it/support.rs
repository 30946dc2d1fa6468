//! What the integration tests need from their surroundings: our binary, the shared corpus,
//! and the reference validator's Python. Missing test tools fail loudly, naming the fix;
//! nothing is skipped.

use std::path::PathBuf;

/// Environment variable naming the Python interpreter that has `skills-ref==0.1.1` installed.
pub(crate) const REFERENCE_PYTHON_VAR: &str = "SKILLPATH_REFERENCE_PYTHON";
/// Environment variable naming the Python interpreter with the MCP SDK (`mcp`) installed.
pub(crate) const TEST_PYTHON_VAR: &str = "SKILLPATH_TEST_PYTHON";
/// Environment variable naming the shared corpus of real skills.
pub(crate) const CORPUS_VAR: &str = "SKILLPATH_CORPUS";

/// The `skillpath` binary under test.
pub(crate) fn skillpath_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skillpath"))
}

/// The Python interpreter with the reference validator.
pub(crate) fn reference_python() -> PathBuf {
    match std::env::var_os(REFERENCE_PYTHON_VAR) {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{REFERENCE_PYTHON_VAR} is not set: run the tests with `scripts/test`, which installs the \
             reference validator (skills-ref==0.1.1) into a cache folder and sets it"
        ),
    }
}

/// The Python interpreter with the test clients (the MCP SDK).
pub(crate) fn test_python() -> PathBuf {
    match std::env::var_os(TEST_PYTHON_VAR) {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{TEST_PYTHON_VAR} is not set: run the tests with `scripts/test`, which installs the \
             test tools (the MCP SDK) into a cache folder and sets it"
        ),
    }
}

/// The shared corpus: `$SKILLPATH_CORPUS`, else `../shared/corpus` beside the repository.
pub(crate) fn corpus_dir() -> PathBuf {
    let path = std::env::var_os(CORPUS_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    assert!(
        path.is_dir(),
        "no skill corpus at {} (set {CORPUS_VAR})",
        path.display()
    );
    path.canonicalize().expect("corpus path")
}
