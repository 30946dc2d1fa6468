//! TLS to PostgreSQL, with libpq's meaning of `sslmode` and `sslrootcert`, so that a URL that
//! works with `psql` works with skillpath (managed databases hand out such URLs).
//!
//! tokio-postgres reads `sslmode=disable|prefer|require` only and knows nothing of certificates;
//! this module takes `sslmode` and `sslrootcert` out of the URL before tokio-postgres reads it,
//! and builds a rustls connector that verifies what the mode asks for:
//!
//! | `sslmode` | encrypted | certificate checked |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it | only with `sslrootcert` |
//! | `require` | always | only with `sslrootcert` |
//! | `verify-ca` | always | signed by a trusted authority |
//! | `verify-full` | always | signed by a trusted authority, and for the host connected to |
//!
//! A URL without them takes them from `PGSSLMODE` and `PGSSLROOTCERT`, as libpq does. The
//! trusted authorities are those in the `sslrootcert` file (PEM), or the system's when
//! `sslrootcert=system` or when a `verify-*` mode names none (libpq would look for
//! `~/.postgresql/root.crt` instead). `allow` is refused: tokio-postgres cannot start in plain
//! text and then retry with TLS.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore};
use tokio_postgres::config::SslMode as WireMode;
pub(super) use tokio_postgres_rustls::MakeRustlsConnect as Connector;

use crate::error::{DatabaseError, StoreError, StoreResult};

/// What `sslmode` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> StoreResult<SslMode> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            "allow" => {
                return Err(StoreError::database(
                    "`sslmode=allow` is not supported; use `prefer` (TLS when the server offers it) or `disable`",
                ));
            }
            other => {
                return Err(StoreError::database(format!(
                    "`sslmode={other}` is not a TLS mode; use disable, prefer, require, verify-ca or verify-full"
                )));
            }
        })
    }

    /// What tokio-postgres is told: whether to ask the server for TLS, and to insist on it.
    fn wire(self) -> WireMode {
        match self {
            SslMode::Disable => WireMode::Disable,
            SslMode::Prefer => WireMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => WireMode::Require,
        }
    }
}

/// Where the trusted certificate authorities come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RootCerts {
    /// No `sslrootcert`.
    Unset,
    /// `sslrootcert=system`: the system's trust store.
    System,
    /// `sslrootcert=PATH`: the certificates in a PEM file.
    File(PathBuf),
}

/// The TLS settings of a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TlsSettings {
    pub(super) mode: SslMode,
    pub(super) root_certs: RootCerts,
}

/// Takes the parameters named `keys` out of `url`'s query, decoded: the URL without them
/// (every other parameter kept as written, for tokio-postgres, which refuses parameters it
/// does not know) and the values taken, by key.
pub(super) fn take_parameters(
    url: &str,
    keys: &[&'static str],
) -> StoreResult<(String, std::collections::HashMap<&'static str, String>)> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut taken = std::collections::HashMap::new();
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match keys.iter().find(|wanted| **wanted == key) {
            Some(wanted) => {
                let value = percent_encoding::percent_decode_str(value)
                    .decode_utf8()
                    .map_err(|_| {
                        StoreError::database(format!(
                            "the value of `{key}` in the URL is not UTF-8"
                        ))
                    })?;
                taken.insert(*wanted, value.into_owned());
            }
            None => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((rest, taken))
}

/// Splits `url` into what tokio-postgres reads (every other parameter, untouched) and its TLS
/// settings. A setting the URL leaves out comes from libpq's environment variable for it
/// (`PGSSLMODE`, `PGSSLROOTCERT`), looked up with `env`, as `psql` would.
pub(super) fn split_url(
    url: &str,
    env: impl Fn(&str) -> Option<String>,
) -> StoreResult<(String, TlsSettings)> {
    let (rest, mut taken) = take_parameters(url, &["sslmode", "sslrootcert"])?;
    let mode = match taken.remove("sslmode").or_else(|| env("PGSSLMODE")) {
        Some(mode) => SslMode::parse(&mode)?,
        None => SslMode::Prefer,
    };
    let root_certs = match taken
        .remove("sslrootcert")
        .or_else(|| env("PGSSLROOTCERT"))
        .as_deref()
    {
        None | Some("") => RootCerts::Unset,
        Some("system") => RootCerts::System,
        Some(path) => RootCerts::File(PathBuf::from(path)),
    };
    Ok((rest, TlsSettings { mode, root_certs }))
}

/// Sets `config`'s wire mode and builds the connector `settings` ask for.
pub(super) fn connector(
    settings: &TlsSettings,
    config: &mut tokio_postgres::Config,
) -> StoreResult<Connector> {
    config.ssl_mode(settings.mode.wire());
    // ring, chosen here rather than installed process-wide, so nothing depends on what else
    // in the process installed.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|error| {
            StoreError::Database(DatabaseError::caused_by(
                format!("cannot set up TLS: {error}"),
                error,
            ))
        })?;
    let check_chain = match settings.mode {
        SslMode::Disable => false,
        SslMode::Prefer | SslMode::Require => settings.root_certs != RootCerts::Unset,
        SslMode::VerifyCa | SslMode::VerifyFull => true,
    };
    let chain = if check_chain {
        let roots = Arc::new(root_store(&settings.root_certs)?);
        let chain = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
            .build()
            .map_err(|error| {
                StoreError::Database(DatabaseError::caused_by(
                    format!("cannot set up TLS: {error}"),
                    error,
                ))
            })?;
        Some(chain)
    } else {
        None
    };
    let verifier: Arc<dyn ServerCertVerifier> = match chain {
        Some(chain) if settings.mode == SslMode::VerifyFull => chain,
        chain => Arc::new(ShortOfFull {
            chain,
            algorithms: provider.signature_verification_algorithms,
        }),
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Connector::new(config))
}

/// The certificate authorities `root_certs` names.
fn root_store(root_certs: &RootCerts) -> StoreResult<RootCertStore> {
    let mut store = RootCertStore::empty();
    match root_certs {
        RootCerts::Unset | RootCerts::System => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err(StoreError::database(
                    "no trusted certificate authorities were found on this system; name the server's in the URL with `sslrootcert=PATH`",
                ));
            }
        }
        RootCerts::File(path) => {
            let unreadable = |reason: String| {
                StoreError::database(format!(
                    "cannot read the certificate authorities in `sslrootcert={}`: {reason}",
                    path.display()
                ))
            };
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|error| unreadable(pem_reason(error)))?
                .collect::<Result<_, _>>()
                .map_err(|error| unreadable(pem_reason(error)))?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(unreadable("it holds no PEM certificate".to_owned()));
            }
        }
    }
    Ok(store)
}

fn pem_reason(error: rustls::pki_types::pem::Error) -> String {
    match error {
        rustls::pki_types::pem::Error::Io(error) => error.to_string(),
        other => format!("{other:?}"),
    }
}

/// A hint for a connection error caused by TLS, if it is one: what to put in the URL.
pub(super) fn hint(reason: &str) -> Option<&'static str> {
    if reason.contains("not valid for name") || reason.contains("NotValidForName") {
        Some(
            "the server's certificate is not for the host in the URL: connect by the name the certificate carries, or use `sslmode=verify-ca` to check the authority only",
        )
    } else if reason.contains("invalid peer certificate") {
        Some(
            "the server's certificate is not signed by an authority skillpath trusts: name the authority's certificate with `sslrootcert=PATH` in the URL, or use `sslmode=require` to encrypt without checking the certificate",
        )
    } else if reason.contains("server does not support TLS") {
        Some(
            "the server does not offer TLS: enable `ssl` on the server, or use `sslmode=prefer` or `sslmode=disable`",
        )
    } else {
        None
    }
}

/// The certificate checks of every mode short of `verify-full`. Without `chain` (`prefer` and
/// `require` without `sslrootcert`) the certificate is taken as sent: the connection is
/// encrypted, which protects against eavesdropping but not impersonation (libpq does the
/// same). With `chain` (`verify-ca`, or `sslrootcert` given) it must chain to a trusted
/// authority, for whatever host name. Either way the server must prove it holds the
/// certificate's key (the handshake signatures are checked).
#[derive(Debug)]
struct ShortOfFull {
    chain: Option<Arc<WebPkiServerVerifier>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for ShortOfFull {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        // The chain (and the certificate's validity) is checked before the name, so a name
        // mismatch means everything else held.
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(url: &str) -> (String, TlsSettings) {
        split_url(url, |_| None).expect("a URL skillpath reads")
    }

    #[test]
    fn tls_parameters_are_taken_out_and_the_rest_is_kept_as_written() {
        let (rest, settings) = split(
            "postgres://u@db:5432/skills?options=-c%20search_path%3Dx&sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&application_name=a",
        );
        assert_eq!(
            rest,
            "postgres://u@db:5432/skills?options=-c%20search_path%3Dx&application_name=a"
        );
        assert_eq!(settings.mode, SslMode::VerifyFull);
        assert_eq!(
            settings.root_certs,
            RootCerts::File(PathBuf::from("/etc/ca.pem"))
        );
    }

    #[test]
    fn prefer_is_the_default_and_a_url_without_parameters_is_unchanged() {
        let (rest, settings) = split("postgres://u@db/skills");
        assert_eq!(rest, "postgres://u@db/skills");
        assert_eq!(settings.mode, SslMode::Prefer);
        assert_eq!(settings.root_certs, RootCerts::Unset);
        let (rest, settings) = split("postgres://u@db/skills?sslmode=disable&sslrootcert=system");
        assert_eq!(rest, "postgres://u@db/skills");
        assert_eq!(settings.mode, SslMode::Disable);
        assert_eq!(settings.root_certs, RootCerts::System);
    }

    #[test]
    fn libpq_environment_variables_fill_in_what_the_url_leaves_out() {
        let env = |key: &str| match key {
            "PGSSLMODE" => Some("verify-full".to_owned()),
            "PGSSLROOTCERT" => Some("/etc/db-ca.pem".to_owned()),
            _ => None,
        };
        let (_, settings) = split_url("postgres://u@db/skills", env).expect("reads");
        assert_eq!(settings.mode, SslMode::VerifyFull);
        assert_eq!(
            settings.root_certs,
            RootCerts::File(PathBuf::from("/etc/db-ca.pem"))
        );
        // The URL wins.
        let (_, settings) = split_url(
            "postgres://u@db/skills?sslmode=disable&sslrootcert=system",
            env,
        )
        .expect("reads");
        assert_eq!(settings.mode, SslMode::Disable);
        assert_eq!(settings.root_certs, RootCerts::System);
        let bad = |key: &str| (key == "PGSSLMODE").then(|| "sometimes".to_owned());
        let error = split_url("postgres://u@db/skills", bad).expect_err("not a mode");
        assert!(error.to_string().contains("`sslmode=sometimes`"), "{error}");
    }

    #[test]
    fn unknown_and_unsupported_modes_are_refused_with_the_choices() {
        let error = split_url("postgres://db/x?sslmode=verify", |_| None).expect_err("not a mode");
        assert!(
            error.to_string().contains("verify-ca or verify-full"),
            "{error}"
        );
        let error = split_url("postgres://db/x?sslmode=allow", |_| None).expect_err("unsupported");
        assert!(error.to_string().contains("use `prefer`"), "{error}");
    }

    #[test]
    fn a_missing_or_empty_root_certificate_file_is_a_clear_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("missing.pem");
        let mut config = tokio_postgres::Config::new();
        let settings = TlsSettings {
            mode: SslMode::VerifyCa,
            root_certs: RootCerts::File(missing.clone()),
        };
        let Err(error) = connector(&settings, &mut config) else {
            panic!("a missing file was accepted");
        };
        let text = error.to_string();
        assert!(text.contains(&missing.display().to_string()), "{text}");
        assert!(text.contains("No such file"), "{text}");

        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").expect("write");
        let settings = TlsSettings {
            mode: SslMode::Require,
            root_certs: RootCerts::File(empty),
        };
        let Err(error) = connector(&settings, &mut config) else {
            panic!("a file without certificates was accepted");
        };
        assert!(
            error.to_string().contains("holds no PEM certificate"),
            "{error}"
        );

        // Without TLS no certificate is read, so a bad file does not matter (as with libpq).
        let settings = TlsSettings {
            mode: SslMode::Disable,
            root_certs: RootCerts::File(missing),
        };
        assert!(connector(&settings, &mut config).is_ok());
    }
}
