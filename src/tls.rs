//! The one TLS setup of the outgoing connections (Google, webhooks, Redis, S3): rustls on
//! the ring crypto provider.

/// Makes rustls use the ring crypto provider (reqwest is built without one, to avoid a
/// second C crypto library). Idempotent.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
