//! Signing in with a real OpenID provider: `tests/studio/oidc.py` starts Debian's `glewlwyd`
//! with the provider tool of `shared/tools/oidc-provider` (`$SKILLPATH_OIDC_PROVIDER`, else
//! next to the workspace), serves the studio with it, and drives the sign-in in Chromium with
//! Playwright through the provider's own login page: the person and namespaces made from the
//! groups, a group left and the membership gone at the next sign-in, a disabled person's session
//! ended, the command line's device login and logout, a forged and a replayed callback, a taken
//! handle, and a provider that does not answer. The script asserts; this test runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{skillpath_bin, test_python};

/// The provider tool's folder.
fn provider_tool() -> PathBuf {
    std::env::var_os("SKILLPATH_OIDC_PROVIDER").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tools/oidc-provider"),
        PathBuf::from,
    )
}

#[test]
fn people_sign_in_with_their_identity_provider() {
    let work = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shots = root.join("../../target/studio-screenshots");
    let tool = provider_tool();
    assert!(
        tool.join("start").is_file(),
        "the OpenID provider tool is not at {} (set SKILLPATH_OIDC_PROVIDER)",
        tool.display()
    );
    let output = Command::new(test_python())
        .arg(root.join("tests/studio/oidc.py"))
        .arg(skillpath_bin())
        .arg(&tool)
        .arg(work.path())
        .arg(&shots)
        .output()
        .expect("run the sign-in tests");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim_end().ends_with("ok"),
        "the sign-in tests failed:\n{stdout}\n{stderr}"
    );
}
