//! Google service accounts: the JSON key Google issues for one (`google.credentials_file`)
//! and the RS256-signed JWT that is exchanged for an access token with the jwt-bearer grant
//! (RFC 7523), so a server reads the sheet without anyone's refresh token. The signature
//! is made by rustls's ring provider (RSASSA-PKCS1-v1_5 with SHA-256 is RS256).

use crate::secret::Secret;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rustls::SignatureScheme;
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The grant type of the token request.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// How long an assertion is valid; Google accepts at most an hour.
const ASSERTION_LIFETIME_SECS: i64 = 3600;

#[derive(Debug, thiserror::Error)]
pub enum ServiceAccountError {
    #[error("cannot read google.credentials_file {path}: {reason}")]
    Read { path: String, reason: String },
    #[error(
        "google.credentials_file {path} is not a service account key ({reason}): download a \
         JSON key for the service account in the Google Cloud console (IAM > Service accounts > \
         Keys > Add key > JSON)"
    )]
    Invalid { path: String, reason: String },
    #[error("the service account key in {path} cannot sign: {reason}")]
    Sign { path: String, reason: String },
}

/// A service account's identity and signing key.
pub struct ServiceAccount {
    pub client_email: String,
    key_id: Option<String>,
    signer: Arc<dyn rustls::sign::SigningKey>,
    path: PathBuf,
}

impl std::fmt::Debug for ServiceAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceAccount")
            .field("client_email", &self.client_email)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Deserialize)]
struct KeyFile {
    #[serde(rename = "type")]
    kind: String,
    client_email: String,
    private_key: String,
    #[serde(default)]
    private_key_id: Option<String>,
}

impl ServiceAccount {
    /// Reads and checks a key file, naming it in every error (and never quoting the key).
    pub fn from_file(path: &Path) -> Result<ServiceAccount, ServiceAccountError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| ServiceAccountError::Read {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        let invalid = |reason: String| ServiceAccountError::Invalid {
            path: shown.clone(),
            reason,
        };
        // serde_json's messages give positions, never the text they failed on.
        let key: KeyFile = serde_json::from_slice(&bytes).map_err(|e| invalid(e.to_string()))?;
        if key.kind != "service_account" {
            return Err(invalid(format!(
                "its \"type\" is \"{}\", not \"service_account\"",
                key.kind.chars().take(40).collect::<String>()
            )));
        }
        if key.client_email.is_empty() {
            return Err(invalid("\"client_email\" is empty".into()));
        }
        let der = PrivateKeyDer::from_pem_slice(key.private_key.as_bytes())
            .map_err(|e| invalid(format!("\"private_key\" is not a PEM private key ({e})")))?;
        let signer = rustls::crypto::ring::sign::any_supported_type(&der)
            .map_err(|e| invalid(format!("\"private_key\" cannot be used ({e})")))?;
        if signer
            .choose_scheme(&[SignatureScheme::RSA_PKCS1_SHA256])
            .is_none()
        {
            return Err(invalid(
                "\"private_key\" is not an RSA key, which RS256 needs".into(),
            ));
        }
        Ok(ServiceAccount {
            client_email: key.client_email,
            key_id: key.private_key_id.filter(|id| !id.is_empty()),
            signer,
            path: path.to_path_buf(),
        })
    }

    /// A signed assertion for `scope`, addressed to the token endpoint `audience`, valid
    /// from `now` (unix seconds) for an hour.
    pub fn assertion(
        &self,
        scope: &str,
        audience: &str,
        now: i64,
    ) -> Result<Secret, ServiceAccountError> {
        let mut header = serde_json::json!({ "alg": "RS256", "typ": "JWT" });
        if let Some(id) = &self.key_id {
            header["kid"] = id.as_str().into();
        }
        let claims = serde_json::json!({
            "iss": self.client_email,
            "scope": scope,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
        });
        let signing_input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let failed = |reason: String| ServiceAccountError::Sign {
            path: self.path.display().to_string(),
            reason,
        };
        let signature = self
            .signer
            .choose_scheme(&[SignatureScheme::RSA_PKCS1_SHA256])
            .ok_or_else(|| failed("no RS256 signer for this key".into()))?
            .sign(signing_input.as_bytes())
            .map_err(|e| failed(e.to_string()))?;
        Ok(Secret::new(format!(
            "{signing_input}.{}",
            URL_SAFE_NO_PAD.encode(signature)
        )))
    }
}
