//! The studio in a real browser: `tests/studio/browser.py` drives Chromium (Debian's
//! `chromium`, `$SKILLPATH_CHROMIUM`) with Playwright for Python through every flow (browse,
//! search, open, try; edit, a diagnostic, fix, save, history, diff, rollback; a stale save and
//! its merge; a Golden Path skill from the form; a hostile skill; keyboard only; sign-in, key
//! creation, an author's draft published by a maintainer, a reader refused; three people in
//! two namespaces, each page showing each exactly what they may see, and a namespace's owner
//! managing its members and settings from its page), and writes a
//! screenshot of every screen at 1280x800 and at a phone's width to
//! `target/studio-screenshots/`. The script asserts; this test runs it.

use std::path::Path;
use std::process::Command;

use crate::support::{skillpath_bin, test_python};

#[test]
fn the_studio_works_in_a_real_browser() {
    let work = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shots = root.join("../../target/studio-screenshots");
    let output = Command::new(test_python())
        .arg(root.join("tests/studio/browser.py"))
        .arg(skillpath_bin())
        .arg(root.join("../../examples"))
        .arg(work.path())
        .arg(&shots)
        .output()
        .expect("run the browser tests");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim_end().ends_with("ok"),
        "the studio's browser tests failed:\n{stdout}\n{stderr}"
    );
}
