//! Signing in with a real OpenID provider: `tests/studio/oidc.py` starts Debian's `glewlwyd`
//! with the provider tool of `shared/tools/oidc-provider` (`$SKILLPATH_OIDC_PROVIDER`, else
//! next to the workspace), serves the studio with it, and drives the sign-in in Chromium with
//! Playwright through the provider's own login page: the person and namespaces made from the
//! groups, a group left and the membership gone at the next sign-in, a disabled person's session
//! ended, the command line's device login and logout (`skillpath login`, and the `clawhub`
//! CLI's own `clawhub login`), a forged and a replayed callback, a taken
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
    let (modules, node) = crate::mcp_inspector::conformance_modules();
    let output = Command::new(test_python())
        .arg(root.join("tests/studio/oidc.py"))
        .arg(skillpath_bin())
        .arg(&tool)
        .arg(work.path())
        .arg(&shots)
        .arg(node)
        .arg(modules.join("clawhub/bin/clawdhub.js"))
        .output()
        .expect("run the sign-in tests");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.trim_end().ends_with("ok"),
        "the sign-in tests failed:\n{stdout}\n{stderr}"
    );
}

/// `--oidc-config`: several providers, each with its button (none is asked before its first
/// sign-in, so a server starts while they are down); a file with a mistake stops the start,
/// naming the file and the fix, as does a group rule without a provider.
#[test]
fn providers_come_from_a_file_and_its_mistakes_stop_the_start() {
    let work = tempfile::tempdir().expect("tempdir");
    let secret = work.path().join("secret");
    std::fs::write(&secret, "s3cret\n").expect("written");
    let file = work.path().join("sign-in.toml");
    let config = format!(
        r#"groups = ["platform=@platform:maintainer", "admins=admin"]

[[provider]]
id = "company"
name = "Company SSO"
issuer = "http://127.0.0.1:9/realms/company"
client_id = "skillpath"
client_secret_file = "{secret}"

[[provider]]
id = "contractors"
name = "Contractor login"
issuer = "http://127.0.0.1:9/realms/contractors"
client_id = "skillpath"
client_secret_file = "{secret}"
groups_claim = "roles"
"#,
        secret = secret.display()
    );
    std::fs::write(&file, &config).expect("written");
    let file_arg = file.to_str().expect("utf-8");
    let server = crate::support::HttpServer::start(work.path(), &["--oidc-config", file_arg]);
    let login = server.exchange("GET", "/login", &[], b"");
    for button in [
        r#"href="/login/oidc/company?next=/">Sign in with Company SSO"#,
        r#"href="/login/oidc/contractors?next=/">Sign in with Contractor login"#,
    ] {
        assert!(login.contains(button), "{login}");
    }
    drop(server);

    let refused = |args: &[&str], said: &str| {
        let out = crate::support::skillpath(&["serve", "--no-discover", "--http", "127.0.0.1:0"])
            .args(args)
            .env("HOME", work.path())
            .env("SKILLPATH_DB", work.path().join("store.db"))
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(said), "{said}: {stderr}");
    };
    std::fs::write(&file, config.replace("groups_claim", "group_claim")).expect("written");
    refused(&["--oidc-config", file_arg], "unknown field `group_claim`");
    std::fs::write(&file, config.replace("admins=admin", "admins=@admins")).expect("written");
    refused(&["--oidc-config", file_arg], "names no role");
    std::fs::write(
        &file,
        config.replace(&secret.display().to_string(), "/nonexistent/secret"),
    )
    .expect("written");
    refused(
        &["--oidc-config", file_arg],
        "cannot read the client secret `/nonexistent/secret`",
    );
    refused(
        &["--oidc-group", "platform=@platform:author"],
        "add the provider",
    );
    refused(
        &[
            "--oidc-issuer",
            "http://127.0.0.1:9/x",
            "--oidc-client-id",
            "c",
        ],
        "`--oidc-issuer` needs `--oidc-client-secret-file PATH`",
    );
}
