//! ID tokens against a real OpenID provider: Debian's `glewlwyd`, started by the tool of
//! `shared/tools/oidc-provider` (`$SKILLPATH_OIDC_PROVIDER`, else next to the workspace). A
//! real token the provider issued is checked, then tampered with: another nonce, another
//! audience, past its expiry, issued in the future, a payload changed under its signature, `alg:
//! none`, signed by another key, a group claim that is not a list. And the provider itself
//! misbehaving: a discovery document naming another issuer, a provider down, one that never
//! answers.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::Utc;
use skillpath_identity::{IdentityError, Provider, ProviderConfig};

fn tool() -> PathBuf {
    std::env::var_os("SKILLPATH_OIDC_PROVIDER").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tools/oidc-provider"),
        PathBuf::from,
    )
}

/// The provider, running for the test's life.
struct Running {
    state: tempfile::TempDir,
    info: serde_json::Value,
}

impl Running {
    fn start() -> Running {
        let state = tempfile::tempdir().expect("tempdir");
        let folder = state.path().join("provider");
        let started = Command::new(tool().join("start"))
            .arg(&folder)
            .env("REDIRECT_URI", "http://127.0.0.1:9/login/oidc/callback")
            .output()
            .expect("start the provider");
        assert!(
            started.status.success(),
            "the provider did not start: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        let line = String::from_utf8_lossy(&started.stdout);
        let info = serde_json::from_str(line.lines().next().unwrap_or_default())
            .expect("the provider's JSON line");
        Running { state, info }
    }

    fn text(&self, name: &str) -> String {
        self.info[name].as_str().unwrap_or_default().to_owned()
    }

    fn config(&self) -> ProviderConfig {
        ProviderConfig {
            id: "test".to_owned(),
            display_name: "Test SSO".to_owned(),
            issuer: self.text("issuer"),
            client_id: self.text("client_id"),
            client_secret: self.text("client_secret"),
            scopes: vec![
                "openid".to_owned(),
                "profile".to_owned(),
                "email".to_owned(),
                "groups".to_owned(),
            ],
            groups_claim: "groups".to_owned(),
            timeout: Duration::from_secs(5),
        }
    }

    /// A real ID token for alice, with `nonce`.
    fn token(&self, nonce: &str) -> String {
        let fixture = self.state.path().join("provider/fixture.json");
        let python = std::env::var_os("SKILLPATH_TEST_PYTHON").unwrap_or_else(|| "python3".into());
        let answered = Command::new(python)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_token.py"))
            .arg(tool())
            .arg(fixture)
            .arg(nonce)
            .output()
            .expect("run the token helper");
        assert!(
            answered.status.success(),
            "no token: {}",
            String::from_utf8_lossy(&answered.stderr)
        );
        let tokens: serde_json::Value =
            serde_json::from_slice(&answered.stdout).expect("the token response");
        tokens["id_token"].as_str().expect("an ID token").to_owned()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = Command::new(tool().join("stop"))
            .arg(self.state.path().join("provider"))
            .output();
    }
}

fn refused(result: Result<skillpath_identity::Identity, IdentityError>) -> String {
    match result {
        Ok(identity) => panic!("accepted: {identity:?}"),
        Err(error) => error.to_string(),
    }
}

/// The token's three parts, decoded where they are JSON.
fn parts(token: &str) -> (serde_json::Value, serde_json::Value, String) {
    let mut split = token.split('.');
    let json = |part: Option<&str>| -> serde_json::Value {
        serde_json::from_slice(
            &URL_SAFE_NO_PAD
                .decode(part.unwrap_or_default())
                .expect("base64"),
        )
        .expect("JSON")
    };
    let header = json(split.next());
    let payload = json(split.next());
    (header, payload, split.next().unwrap_or_default().to_owned())
}

fn encoded(value: &serde_json::Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// `header.payload` signed RS256 with a fresh RSA key of openssl's (not the provider's).
fn signed_by_another_key(header: &serde_json::Value, payload: &serde_json::Value) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = dir.path().join("other.pem");
    let made = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&key)
        .output()
        .expect("openssl");
    assert!(made.status.success());
    let input = format!("{}.{}", encoded(header), encoded(payload));
    let data = dir.path().join("input");
    std::fs::write(&data, &input).expect("written");
    let signed = Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(&key)
        .arg(&data)
        .output()
        .expect("openssl");
    assert!(signed.status.success());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signed.stdout))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_tokens_are_checked_and_tampered_ones_refused() {
    let running = Running::start();
    let provider = Provider::new(running.config());
    let token = running.token("the-nonce");
    let now = Utc::now();

    let identity = provider
        .verify_id_token(&token, Some("the-nonce"), now)
        .await
        .expect("the provider's own token");
    assert_eq!(identity.username.as_deref(), Some("alice"));
    assert_eq!(identity.email.as_deref(), Some("alice@example.com"));
    assert_eq!(identity.groups, ["platform", "team-a"]);
    assert_eq!(identity.issuer, running.text("issuer"));
    assert!(!identity.subject.is_empty());

    let said = refused(
        provider
            .verify_id_token(&token, Some("another-nonce"), now)
            .await,
    );
    assert!(said.contains("nonce"), "{said}");

    let stranger = Provider::new(ProviderConfig {
        client_id: "another-client".to_owned(),
        ..running.config()
    });
    let said = refused(
        stranger
            .verify_id_token(&token, Some("the-nonce"), now)
            .await,
    );
    assert!(said.to_lowercase().contains("aud"), "{said}");

    let later = now + chrono::Duration::hours(2);
    let said = refused(
        provider
            .verify_id_token(&token, Some("the-nonce"), later)
            .await,
    );
    assert!(said.contains("expired"), "{said}");

    let earlier = now - chrono::Duration::minutes(30);
    let said = refused(
        provider
            .verify_id_token(&token, Some("the-nonce"), earlier)
            .await,
    );
    assert!(said.contains("future"), "{said}");

    let (header, mut payload, signature) = parts(&token);
    payload["groups"] = serde_json::json!(["admins"]);
    let changed = format!("{}.{}.{signature}", encoded(&header), encoded(&payload));
    let said = refused(
        provider
            .verify_id_token(&changed, Some("the-nonce"), now)
            .await,
    );
    assert!(said.to_lowercase().contains("signature"), "{said}");

    let unsigned_header = serde_json::json!({"alg": "none", "typ": "JWT"});
    let (_, original, _) = parts(&token);
    let unsigned = format!("{}.{}.", encoded(&unsigned_header), encoded(&original));
    let said = refused(
        provider
            .verify_id_token(&unsigned, Some("the-nonce"), now)
            .await,
    );
    assert!(said.contains("ID token was refused"), "{said}");

    let forged = signed_by_another_key(&header, &original);
    let said = refused(
        provider
            .verify_id_token(&forged, Some("the-nonce"), now)
            .await,
    );
    assert!(said.to_lowercase().contains("signature"), "{said}");

    let listless = Provider::new(ProviderConfig {
        groups_claim: "email".to_owned(),
        ..running.config()
    });
    let said = refused(
        listless
            .verify_id_token(&token, Some("the-nonce"), now)
            .await,
    );
    assert!(said.contains("not a list of groups"), "{said}");
}

/// The provider's signing key rotated: its new tokens name a key the key set read before lacks,
/// so the key set is read again (once the refetch interval has passed) and they verify; a token
/// of the retired key no longer does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_signing_key_is_fetched_again() {
    let running = Running::start();
    let provider = Provider::new(running.config());
    let old = running.token("before");
    provider
        .verify_id_token(&old, Some("before"), Utc::now())
        .await
        .expect("the first key's token");
    let python = std::env::var_os("SKILLPATH_TEST_PYTHON").unwrap_or_else(|| "python3".into());
    let rotated = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rotate_key.py"))
        .arg(tool())
        .arg(running.state.path().join("provider/fixture.json"))
        .arg(running.state.path())
        .output()
        .expect("rotate the key");
    assert!(
        rotated.status.success(),
        "{}",
        String::from_utf8_lossy(&rotated.stderr)
    );
    let new = running.token("after");
    assert_ne!(
        parts(&new).0["kid"],
        parts(&old).0["kid"],
        "a new key signs"
    );
    // Within the refetch interval the cached key set stands: the new key is not trusted yet.
    let early = refused(
        provider
            .verify_id_token(&new, Some("after"), Utc::now())
            .await,
    );
    assert!(early.to_lowercase().contains("key"), "{early}");
    tokio::time::sleep(skillpath_identity::JWKS_REFETCH_INTERVAL).await;
    let identity = provider
        .verify_id_token(&new, Some("after"), Utc::now())
        .await
        .expect("the rotated key, fetched again");
    assert_eq!(identity.username.as_deref(), Some("alice"));
    let retired = refused(
        provider
            .verify_id_token(&old, Some("before"), Utc::now())
            .await,
    );
    assert!(
        retired.to_lowercase().contains("key") || retired.contains("signature"),
        "{retired}"
    );
}

/// Serves `body` as the answer to every request on a loopback port, on a thread: its URL.
fn serve_forever(body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_that_misbehaves_is_named_and_refused() {
    let running = Running::start();
    let discovery = ureq::get(running.text("discovery"))
        .call()
        .expect("discovery")
        .body_mut()
        .read_to_string()
        .expect("text");
    let elsewhere = serve_forever(discovery.replace(
        &format!("\"{}\"", running.text("issuer")),
        "\"https://attacker.example/realms/x\"",
    ));
    let pointing = Provider::new(ProviderConfig {
        issuer: elsewhere,
        ..running.config()
    });
    let said = pointing
        .login("http://127.0.0.1:9/login/oidc/callback")
        .await
        .expect_err("another issuer");
    assert!(matches!(said, IdentityError::Discovery { .. }), "{said}");
    assert!(said.to_string().contains("issuer"), "{said}");

    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("address").port();
    drop(closed);
    let down = Provider::new(ProviderConfig {
        issuer: format!("http://127.0.0.1:{port}/realms/x"),
        ..running.config()
    });
    let said = down.login("http://127.0.0.1:9/cb").await.expect_err("down");
    assert!(matches!(said, IdentityError::Unreachable { .. }), "{said}");

    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let slow = Provider::new(ProviderConfig {
        issuer: format!("http://{}/realms/x", silent.local_addr().expect("address")),
        timeout: Duration::from_secs(1),
        ..running.config()
    });
    let began = Instant::now();
    let said = slow.login("http://127.0.0.1:9/cb").await.expect_err("slow");
    assert!(matches!(said, IdentityError::Unreachable { .. }), "{said}");
    assert!(said.to_string().contains("did not answer"), "{said}");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    drop(silent);
}
