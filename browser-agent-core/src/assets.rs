//! The embedded page client (built by `scripts/build-client`, committed under `assets/client/`),
//! served under content-hashed names with immutable caching, gzipped for browsers that accept it
//! (every browser does; the build writes the `.gz` copies, so nothing is compressed at run time).

use std::sync::OnceLock;

use bytes::Bytes;

use crate::inject::tag::BOOTSTRAP_JS;
use crate::protocol;
use crate::util::fnv1a64;

const CLIENT_JS: &[u8] = include_bytes!("../assets/client/browser_agent_client.js");
const CLIENT_WASM: &[u8] = include_bytes!("../assets/client/browser_agent_client_bg.wasm");
const CLIENT_JS_GZ: &[u8] = include_bytes!("../assets/client/browser_agent_client.js.gz");
const CLIENT_WASM_GZ: &[u8] = include_bytes!("../assets/client/browser_agent_client_bg.wasm.gz");
/// The client's ES modules, served as `{name}-{rev}.js`: the sensor every page imports after its
/// first frame ([`protocol::SENSOR_ASSET`]), then those loaded on first use (see
/// [`protocol::lazy`]): (name, JS, gzipped JS).
const MODULES: [(&str, &[u8], &[u8]); 9] = [
    (
        protocol::SENSOR_ASSET,
        include_bytes!("../assets/client/sensor.js"),
        include_bytes!("../assets/client/sensor.js.gz"),
    ),
    (
        protocol::lazy::SCREENSHOT,
        include_bytes!("../assets/client/screenshot.js"),
        include_bytes!("../assets/client/screenshot.js.gz"),
    ),
    (
        protocol::lazy::CURSOR,
        include_bytes!("../assets/client/cursor.js"),
        include_bytes!("../assets/client/cursor.js.gz"),
    ),
    (
        protocol::lazy::NOTES,
        include_bytes!("../assets/client/notes.js"),
        include_bytes!("../assets/client/notes.js.gz"),
    ),
    (
        protocol::lazy::EVALUATE,
        include_bytes!("../assets/client/evaluate.js"),
        include_bytes!("../assets/client/evaluate.js.gz"),
    ),
    (
        protocol::lazy::SCROLL,
        include_bytes!("../assets/client/scroll.js"),
        include_bytes!("../assets/client/scroll.js.gz"),
    ),
    (
        protocol::lazy::KEYS,
        include_bytes!("../assets/client/keys.js"),
        include_bytes!("../assets/client/keys.js.gz"),
    ),
    (
        protocol::lazy::SOURCE,
        include_bytes!("../assets/client/source.js"),
        include_bytes!("../assets/client/source.js.gz"),
    ),
    // The `audit` step's module: axe-core (pinned in browser-agent-client/audit/) and its adapter.
    (
        protocol::lazy::AUDIT,
        include_bytes!("../assets/client/audit.js"),
        include_bytes!("../assets/client/audit.js.gz"),
    ),
];

/// One servable asset.
#[derive(Debug, Clone)]
pub struct Asset {
    /// File name under `{prefix}/assets/`, content-hashed.
    pub name: String,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The bytes.
    pub body: Bytes,
    /// The same bytes gzipped, when the build made them.
    pub gzip: Option<Bytes>,
}

/// The client assets and the revision they make.
#[derive(Debug)]
pub struct ClientAssets {
    /// Content hash of bootstrap, glue and wasm: the client revision pages report.
    pub rev: String,
    /// The hands' JS glue (absent when no client was built into this copy of core).
    pub js: Option<Asset>,
    /// The hands' wasm module.
    pub wasm: Option<Asset>,
    /// The client's ES modules (`{name}-{rev}.js`): the sensor, and those loaded on first use (see
    /// [`protocol::lazy`]).
    pub lazy: Vec<Asset>,
}

impl ClientAssets {
    /// The embedded assets (hashed once per process).
    ///
    /// ```
    /// let assets = browser_agent_core::adapter::ClientAssets::embedded();
    /// assert_eq!(assets.rev.len(), 16);
    /// ```
    pub fn embedded() -> &'static ClientAssets {
        static ASSETS: OnceLock<ClientAssets> = OnceLock::new();
        ASSETS.get_or_init(|| {
            ClientAssets::from_parts(
                BOOTSTRAP_JS.as_bytes(),
                (CLIENT_JS, CLIENT_JS_GZ),
                (CLIENT_WASM, CLIENT_WASM_GZ),
                &MODULES,
            )
        })
    }

    /// Assets from (plain, gzipped) bytes; an empty gzip part means none.
    pub(crate) fn from_parts(
        bootstrap: &[u8],
        (js, js_gz): (&'static [u8], &'static [u8]),
        (wasm, wasm_gz): (&'static [u8], &'static [u8]),
        lazy: &[(&str, &'static [u8], &'static [u8])],
    ) -> ClientAssets {
        let gz = |b: &'static [u8]| (!b.is_empty()).then(|| Bytes::from_static(b));
        let mut parts = vec![bootstrap, js, wasm];
        parts.extend(lazy.iter().map(|(_, js, _)| *js));
        let rev = format!("{:016x}", fnv1a64(&parts));
        let built = !js.is_empty() && !wasm.is_empty();
        let short = &rev[..12];
        ClientAssets {
            js: built.then(|| Asset {
                name: format!("client-{short}.js"),
                content_type: "text/javascript; charset=utf-8",
                body: Bytes::from_static(js),
                gzip: gz(js_gz),
            }),
            wasm: built.then(|| Asset {
                name: format!("client-{short}_bg.wasm"),
                content_type: "application/wasm",
                body: Bytes::from_static(wasm),
                gzip: gz(wasm_gz),
            }),
            lazy: lazy
                .iter()
                .filter(|(_, js, _)| built && !js.is_empty())
                .map(|(name, js, js_gz)| Asset {
                    name: format!("{name}-{short}.js"),
                    content_type: "text/javascript; charset=utf-8",
                    body: Bytes::from_static(js),
                    gzip: gz(js_gz),
                })
                .collect(),
            rev,
        }
    }

    /// The asset called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Asset> {
        [&self.js, &self.wasm]
            .into_iter()
            .flatten()
            .chain(&self.lazy)
            .find(|a| a.name == name)
    }
}
