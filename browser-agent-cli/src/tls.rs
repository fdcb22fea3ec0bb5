//! The connector to the dev server: plain TCP for an `http://` target, TLS for an `https://` one
//! (Vite's `server.https`, Next's `--experimental-https`, mkcert, a framework's self-signed
//! certificate).
//!
//! Dev servers' certificates are self-signed or signed by a local CA that only the developer's
//! browser trusts, so the certificate is not checked against any roots, as the dev servers' own
//! proxies do (Vite's `secure: false`, webpack-dev-server's). The handshake's signatures still
//! are: the connection is encrypted to whoever holds the certificate's key.
//!
//! TLS is the `https` feature (on by default): rustls with the ring provider, whose build compiles
//! C and assembly for the target, so it needs a C compiler for it. Built without it, the connector
//! is plain TCP and an `https://` target is refused when `--target` is parsed.

#[cfg(feature = "https")]
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "https")]
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
#[cfg(feature = "https")]
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
#[cfg(feature = "https")]
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
#[cfg(feature = "https")]
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
#[cfg(feature = "https")]
use rustls::{DigitallySignedStruct, SignatureScheme};

/// What every request to the dev server goes through: TCP, and TLS for `https` URIs.
#[cfg(feature = "https")]
pub(crate) type Connector = HttpsConnector<HttpConnector>;
/// What every request to the dev server goes through: TCP (built without `https`).
#[cfg(not(feature = "https"))]
pub(crate) type Connector = HttpConnector;

/// TCP to the dev server: TCP_NODELAY, a 5 s connect timeout.
fn tcp() -> HttpConnector {
    let mut tcp = HttpConnector::new();
    tcp.set_nodelay(true);
    tcp.set_connect_timeout(Some(Duration::from_secs(5)));
    tcp
}

/// The connector every request to the dev server goes through, without TLS (the `https` feature
/// is off).
#[cfg(not(feature = "https"))]
pub(crate) fn connector() -> Connector {
    tcp()
}

/// The connector every request to the dev server goes through (TCP_NODELAY, a 5 s connect
/// timeout; TLS when the URI says `https`, speaking HTTP/1.1 there: without ALPN, which
/// hyper-rustls leaves empty for HTTP/1, Node's https and http2 servers (`allowHTTP1`, Vite's)
/// answer in it).
#[cfg(feature = "https")]
pub(crate) fn connector() -> Connector {
    let mut tcp = tcp();
    // The https connector takes the `https` URIs; the TCP one must let them through.
    tcp.enforce_http(false);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("ring supports TLS 1.2 and 1.3")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(tcp)
}

/// Takes the dev server's certificate as it is (see the module), and checks the handshake's
/// signatures with the provider's algorithms.
#[cfg(feature = "https")]
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

#[cfg(feature = "https")]
impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
