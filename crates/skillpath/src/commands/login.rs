//! `skillpath login` and `skillpath logout`: a key of one's own for a skillpath server, kept
//! in the credentials file ([`skillpath_sources::credentials`]) that `add --registry` and
//! `mirror` send to that server.
//!
//! `login --server URL` runs the OAuth 2.0 device grant through the server (which holds the
//! identity provider's client): it prints where to approve and the code to type, polls until
//! the person approved, and stores the key the server made for them. `--token-file` stores a key
//! made otherwise (the studio's key page, `skillpath keys create`), checked against the server
//! first. `logout` revokes the key on its server and forgets it.
//!
//! Exit status: 0 signed in (or out); 1 refused (denied, expired, a key the server does not
//! take); 2 usage, or the server unreachable.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_sources::SourceError;
use skillpath_sources::credentials::{self, Credential, Credentials};
use skillpath_sources::http;

use crate::cli::{LoginArgs, LogoutArgs, OutputFormat};
use crate::output::{self, ExitStatus};

/// The most bytes of one answer of the server read.
const MAX_ANSWER: u64 = 1024 * 1024;

/// The longest a device login is waited for, whatever the provider says.
const MOST_WAIT: Duration = Duration::from_secs(30 * 60);

/// The JSON of an answer, or `Null`.
fn json_of(fetched: &http::Fetched) -> Value {
    serde_json::from_slice(&fetched.body).unwrap_or(Value::Null)
}

/// What the server said of a refusal (`message`, else its body).
fn said(fetched: &http::Fetched) -> String {
    json_of(fetched)["message"]
        .as_str()
        .map_or_else(|| fetched.text(), str::to_owned)
}

/// `error` said with its hint, as every install command says it; then `status`.
fn fail(error: &SourceError, status: ExitStatus) -> anyhow::Result<ExitStatus> {
    Ok(super::install::fail(error, status)?)
}

pub(crate) fn login(args: LoginArgs) -> anyhow::Result<ExitStatus> {
    let server = credentials::server_key(&args.server);
    let Some(path) = credentials::path() else {
        return fail(
            &SourceError::new(
                "neither $XDG_CONFIG_HOME nor $HOME is set: there is nowhere to keep the key",
            ),
            ExitStatus::UsageOrInternal,
        );
    };
    let credential = match &args.token_file {
        Some(file) => match given_key(&server, file) {
            Ok(credential) => credential,
            Err((error, status)) => return fail(&error, status),
        },
        None => match device_login(&server, args.provider.as_deref()) {
            Ok(credential) => credential,
            Err((error, status)) => return fail(&error, status),
        },
    };
    let mut stored = match Credentials::read(&path) {
        Ok(stored) => stored,
        Err(error) => return fail(&error, ExitStatus::UsageOrInternal),
    };
    stored.servers.insert(server.clone(), credential.clone());
    if let Err(error) = stored.write(&path) {
        return fail(&error, ExitStatus::UsageOrInternal);
    }
    match args.format {
        OutputFormat::Json => output::stdout(&format!(
            "{}\n",
            json!({
                "server": server,
                "user": credential.user,
                "key": credential.name,
                "expires_at": credential.expires_at,
                "credentials": path.display().to_string(),
            })
        ))?,
        OutputFormat::Text => output::stdout(&format!(
            "Signed in to {server} as {} (key `{}`{}); the key is in {}\n",
            credential.user,
            credential.name,
            credential
                .expires_at
                .as_ref()
                .map_or(String::new(), |at| format!(", until {at}")),
            path.display()
        ))?,
    }
    Ok(ExitStatus::Success)
}

type Refusal = (SourceError, ExitStatus);

fn unreachable(error: SourceError) -> Refusal {
    (error, ExitStatus::UsageOrInternal)
}

/// The key in `file`, checked with the server (`whoami`).
fn given_key(server: &str, file: &std::path::Path) -> Result<Credential, Refusal> {
    let key = std::fs::read_to_string(file)
        .map_err(|error| unreachable(SourceError::io("read", file, &error)))?;
    let key = key.trim().to_owned();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return Err((
            SourceError::new(format!(
                "`{}` holds no API key (one line, `sp_…`)",
                file.display()
            )),
            ExitStatus::UsageOrInternal,
        ));
    }
    let url = format!("{server}/api/v1/whoami");
    let fetched = http::fetch(&url, Some(&key), MAX_ANSWER).map_err(unreachable)?;
    if fetched.status != 200 {
        return Err((
            SourceError::new(format!(
                "{server} does not take this key (HTTP {}): {}",
                fetched.status,
                fetched.text()
            )),
            ExitStatus::Invalid,
        ));
    }
    let user = json_of(&fetched)["user"]["handle"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let name = key.split('_').take(2).collect::<Vec<_>>().join("_");
    Ok(Credential {
        key,
        name,
        user,
        expires_at: None,
    })
}

/// The device grant through the server: the code shown, the approval waited for.
fn device_login(server: &str, provider: Option<&str>) -> Result<Credential, Refusal> {
    let begun = http::post_json(
        &format!("{server}/login/device"),
        None,
        &json!({"provider": provider}),
        MAX_ANSWER,
    )
    .map_err(unreachable)?;
    let device = json_of(&begun);
    if begun.status != 200 {
        let status = match begun.status {
            404 => ExitStatus::Invalid,
            _ => ExitStatus::UsageOrInternal,
        };
        return Err((
            SourceError::new(format!("{server}: {}", said(&begun))),
            status,
        ));
    }
    let text = |name: &str| device[name].as_str().unwrap_or_default().to_owned();
    let (user_code, verification) = (text("user_code"), text("verification_uri"));
    let direct = device["verification_uri_complete"].as_str();
    let mut shown = format!(
        "To sign in with {}, open {verification} and enter the code {user_code}\n",
        text("provider_name")
    );
    if let Some(direct) = direct {
        shown.push_str(&format!("(or open {direct}, which has the code in it)\n"));
    }
    shown.push_str("Waiting for you to approve… (Ctrl-C stops)\n");
    output::stderr(&shown).map_err(|error| unreachable(SourceError::new(error.to_string())))?;
    let lives = Duration::from_secs(device["expires_in"].as_u64().unwrap_or(600)).min(MOST_WAIT);
    let poll = json!({
        "provider": device["provider"],
        "device_code": device["device_code"],
        "interval": device["interval"],
    });
    let started = Instant::now();
    loop {
        let answered = http::post_json(
            &format!("{server}/login/device/token"),
            None,
            &poll,
            MAX_ANSWER,
        )
        .map_err(unreachable)?;
        let answer = json_of(&answered);
        if answered.status == 200 {
            return Ok(Credential {
                key: answer["key"].as_str().unwrap_or_default().to_owned(),
                name: answer["name"].as_str().unwrap_or_default().to_owned(),
                user: answer["user"].as_str().unwrap_or_default().to_owned(),
                expires_at: answer["expires_at"].as_str().map(str::to_owned),
            });
        }
        if answer["error"] != "authorization_pending" {
            return Err((
                SourceError::new(format!("the sign-in was refused: {}", said(&answered))),
                ExitStatus::Invalid,
            ));
        }
        if started.elapsed() > lives {
            return Err((
                SourceError::new("the code expired before it was approved")
                    .hint("run `skillpath login` again, and approve within the time it gives"),
                ExitStatus::Invalid,
            ));
        }
        // The server waits for the approval itself; this pause only spaces out the polls of a
        // server that answers at once.
        std::thread::sleep(Duration::from_secs(1));
    }
}

pub(crate) fn logout(args: LogoutArgs) -> anyhow::Result<ExitStatus> {
    let Some(path) = credentials::path() else {
        return fail(
            &SourceError::new("neither $XDG_CONFIG_HOME nor $HOME is set: no key is stored"),
            ExitStatus::UsageOrInternal,
        );
    };
    let mut stored = match Credentials::read(&path) {
        Ok(stored) => stored,
        Err(error) => return fail(&error, ExitStatus::UsageOrInternal),
    };
    let server = match &args.server {
        Some(server) => credentials::server_key(server),
        None => match stored.servers.keys().collect::<Vec<_>>().as_slice() {
            [only] => (*only).clone(),
            [] => {
                output::stdout("No key is stored: nothing to sign out of.\n")?;
                return Ok(ExitStatus::Success);
            }
            many => {
                let names: Vec<&str> = many.iter().map(|server| server.as_str()).collect();
                return fail(
                    &SourceError::new(format!(
                        "keys are stored for several servers ({}): name one with `--server`",
                        names.join(", ")
                    )),
                    ExitStatus::UsageOrInternal,
                );
            }
        },
    };
    let Some(credential) = stored.servers.remove(&server) else {
        output::stdout(&format!(
            "No key is stored for {server}: nothing to sign out of.\n"
        ))?;
        return Ok(ExitStatus::Success);
    };
    let revoked = http::post_json(
        &format!("{server}/logout/key"),
        Some(&credential.key),
        &json!({}),
        MAX_ANSWER,
    );
    let note = match &revoked {
        Ok(answer) if answer.status == 200 => format!("key `{}` revoked", credential.name),
        Ok(answer) if answer.status == 401 => {
            format!("key `{}` was no longer valid there", credential.name)
        }
        Ok(answer) => {
            return fail(
                &SourceError::new(format!(
                    "{server} did not revoke the key (HTTP {}): {}; it is kept",
                    answer.status,
                    said(answer)
                )),
                ExitStatus::Invalid,
            );
        }
        Err(error) => {
            return fail(
                &SourceError::new(format!("{error}; the key is kept"))
                    .hint("run `skillpath logout` again once the server answers"),
                ExitStatus::UsageOrInternal,
            );
        }
    };
    if let Err(error) = stored.write(&path) {
        return fail(&error, ExitStatus::UsageOrInternal);
    }
    output::stdout(&format!("Signed out of {server}: {note}, and forgotten.\n"))?;
    Ok(ExitStatus::Success)
}
