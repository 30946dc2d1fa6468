//! `serve`'s identity providers: from the `--oidc-*` flags (one provider) and `--oidc-config`
//! (a TOML file of several, with group rules), read before the server starts so that a
//! mistake is said at once with its fix, never at the first sign-in.
//!
//! The file:
//!
//! ```toml
//! groups = ["platform=@platform:maintainer", "admins=admin"]
//!
//! [[provider]]
//! id = "company"                      # in the studio's URLs
//! name = "Company SSO"                # on the button
//! issuer = "https://id.example.com/realms/company"
//! client_id = "skillpath"
//! client_secret_file = "/etc/skillpath/oidc-secret"
//! scopes = ["openid", "profile", "email", "groups"]   # optional
//! groups_claim = "groups"                              # optional
//! ```

use std::path::Path;
use std::time::Duration;

use skillpath_app::GroupRule;
use skillpath_identity::ProviderConfig;
use skillpath_studio::SignInOptions;

use crate::cli::OidcArgs;

/// One provider of the file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvider {
    id: String,
    name: Option<String>,
    issuer: String,
    client_id: String,
    client_secret_file: std::path::PathBuf,
    scopes: Option<Vec<String>>,
    groups_claim: Option<String>,
}

/// The file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInFile {
    #[serde(default)]
    groups: Vec<String>,
    #[serde(default)]
    provider: Vec<FileProvider>,
}

/// The sign-in `args` configure (`None`: API keys only), or what is wrong, with the fix.
pub(crate) fn options(args: &OidcArgs) -> Result<Option<SignInOptions>, String> {
    let timeout = Duration::from_secs(args.oidc_timeout.max(1));
    let scopes: Vec<String> = args
        .oidc_scopes
        .iter()
        .flat_map(|scopes| scopes.split_whitespace().map(str::to_owned))
        .collect();
    let mut providers = Vec::new();
    let mut rules = Vec::new();
    if let Some(issuer) = &args.oidc_issuer {
        let client_id = args.oidc_client_id.clone().ok_or(
            "`--oidc-issuer` needs `--oidc-client-id ID` (the client the provider knows this server by)",
        )?;
        let secret_file = args.oidc_client_secret_file.as_ref().ok_or(
            "`--oidc-issuer` needs `--oidc-client-secret-file PATH` (a file holding the client's secret)",
        )?;
        providers.push(ProviderConfig {
            id: "oidc".to_owned(),
            display_name: args.oidc_name.clone(),
            issuer: issuer.clone(),
            client_id,
            client_secret: secret(secret_file)?,
            scopes: scopes.clone(),
            groups_claim: args.oidc_groups_claim.clone(),
            timeout,
        });
    }
    if let Some(path) = &args.oidc_config {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
        let file: SignInFile = toml::from_str(&text)
            .map_err(|error| format!("`{}` is not a sign-in file: {error}", path.display()))?;
        for provider in file.provider {
            if providers
                .iter()
                .any(|known: &ProviderConfig| known.id == provider.id)
            {
                return Err(format!(
                    "`{}` names the provider `{}` twice: give each its own `id`",
                    path.display(),
                    provider.id
                ));
            }
            if provider.id.is_empty()
                || !provider
                    .id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                return Err(format!(
                    "`{}`: the provider id `{}` goes in URLs: letters, digits and `-` only",
                    path.display(),
                    provider.id
                ));
            }
            providers.push(ProviderConfig {
                display_name: provider.name.unwrap_or_else(|| provider.id.clone()),
                id: provider.id,
                issuer: provider.issuer,
                client_id: provider.client_id,
                client_secret: secret(&provider.client_secret_file)?,
                scopes: provider.scopes.unwrap_or_else(|| scopes.clone()),
                groups_claim: provider
                    .groups_claim
                    .unwrap_or_else(|| args.oidc_groups_claim.clone()),
                timeout,
            });
        }
        for rule in &file.groups {
            rules.push(
                GroupRule::parse(rule).map_err(|why| format!("`{}`: {why}", path.display()))?,
            );
        }
    }
    for rule in &args.oidc_groups {
        rules.push(GroupRule::parse(rule).map_err(|why| format!("`--oidc-group`: {why}"))?);
    }
    if providers.is_empty() {
        if !rules.is_empty() {
            return Err("`--oidc-group` maps a provider's groups: add the provider (`--oidc-issuer` or `--oidc-config`)".to_owned());
        }
        return Ok(None);
    }
    let lifetime = skillpath_store::keys::parse_lifetime(&args.login_key_lifetime)
        .map_err(|error| format!("`--login-key-lifetime`: {error}"))?;
    if let Some(url) = &args.public_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(format!(
            "`--public-url {url}` is not an address: write it as users reach the studio (`https://skills.example.com`)"
        ));
    }
    Ok(Some(SignInOptions {
        providers,
        rules,
        public_url: args.public_url.clone(),
        cli_key_lifetime: Duration::from_secs(lifetime),
    }))
}

/// The client secret `path` holds (its first line).
fn secret(path: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        format!(
            "cannot read the client secret `{}`: {error}",
            path.display()
        )
    })?;
    let secret = text.lines().next().unwrap_or_default().trim().to_owned();
    if secret.is_empty() {
        return Err(format!(
            "`{}` is empty: put the client's secret on its first line",
            path.display()
        ));
    }
    Ok(secret)
}
