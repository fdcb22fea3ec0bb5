//! The embedded page client (built by `scripts/build-client`, committed under `assets/client/`),
//! served under content-hashed names with immutable caching.

use std::sync::OnceLock;

use bytes::Bytes;

use crate::inject::tag::BOOTSTRAP_JS;
use crate::util::fnv1a64;

const CLIENT_JS: &[u8] = include_bytes!("../assets/client/browser_agent_client.js");
const CLIENT_WASM: &[u8] = include_bytes!("../assets/client/browser_agent_client_bg.wasm");

/// One servable asset.
#[derive(Debug, Clone)]
pub struct Asset {
    /// File name under `{prefix}/assets/`, content-hashed.
    pub name: String,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The bytes.
    pub body: Bytes,
}

/// The client assets and the revision they make.
#[derive(Debug)]
pub struct ClientAssets {
    /// Content hash of bootstrap, glue and wasm: the client revision pages report.
    pub rev: String,
    /// The JS glue (absent when no client was built into this copy of core).
    pub js: Option<Asset>,
    /// The wasm module.
    pub wasm: Option<Asset>,
}

impl ClientAssets {
    /// The embedded assets (hashed once per process).
    ///
    /// ```
    /// let assets = browser_agent_core::assets::ClientAssets::embedded();
    /// assert_eq!(assets.rev.len(), 16);
    /// ```
    pub fn embedded() -> &'static ClientAssets {
        static ASSETS: OnceLock<ClientAssets> = OnceLock::new();
        ASSETS.get_or_init(|| ClientAssets::from_parts(BOOTSTRAP_JS.as_bytes(), CLIENT_JS, CLIENT_WASM))
    }

    pub(crate) fn from_parts(bootstrap: &[u8], js: &'static [u8], wasm: &'static [u8]) -> ClientAssets {
        let rev = format!("{:016x}", fnv1a64(&[bootstrap, js, wasm]));
        let built = !js.is_empty() && !wasm.is_empty();
        let short = &rev[..12];
        ClientAssets {
            js: built.then(|| Asset {
                name: format!("client-{short}.js"),
                content_type: "text/javascript; charset=utf-8",
                body: Bytes::from_static(js),
            }),
            wasm: built.then(|| Asset {
                name: format!("client-{short}_bg.wasm"),
                content_type: "application/wasm",
                body: Bytes::from_static(wasm),
            }),
            rev,
        }
    }

    /// The asset called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Asset> {
        [&self.js, &self.wasm].into_iter().flatten().find(|a| a.name == name)
    }
}
